//! The lab's view model: each client's own view (exactly what it draws), a server view
//! built from the server's world, and the wire lanes, as the UI's plain data.

use std::time::Instant;

use super::{Lab, LabClient};
use crate::client::Switches;
use crate::client::netcode::session::ClientSession;
use crate::net::conditioner::Conditions;
use crate::sim::map::CELL;
use crate::sim::world::PlayerState;
use crate::ui::lab::{LabView, LaneView, Pane};
use crate::ui::{Beam, Hud, Sprite, SpriteKind, SwitchLights, Theme, View};

/// What the front end adds to the lab's state: the clock and who the keys act on.
pub(crate) struct Controls<'a> {
    pub(crate) selected: usize,
    pub(crate) speed: f64,
    pub(crate) paused: bool,
    pub(crate) fps: f64,
    pub(crate) message: &'a str,
    pub(crate) help: bool,
    pub(crate) theme: Theme,
    /// The command or snapshot followed (`f`), and what is drawn over the views (`L`).
    pub(crate) follow: Option<super::follow::Follow>,
    pub(crate) over: Over,
}

/// What `L` draws over the views, for a screen with no rows left under the lanes
/// (100x30): the ladder, then the meters, then nothing. A panel drawn over the views
/// is not drawn under the lanes too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Over {
    #[default]
    Nothing,
    Ladder,
    Meters,
}

impl Over {
    /// What the next `L` draws.
    pub(crate) fn next(self) -> Over {
        match self {
            Over::Nothing => Over::Ladder,
            Over::Ladder => Over::Meters,
            Over::Meters => Over::Nothing,
        }
    }
}

fn cells(x: i32, y: i32) -> (f64, f64) {
    (
        f64::from(x) / f64::from(CELL),
        f64::from(y) / f64::from(CELL),
    )
}

fn at(state: PlayerState) -> (f64, f64) {
    cells(state.x, state.y)
}

pub(crate) fn build<'a>(lab: &'a Lab, c: &Controls) -> LabView<'a> {
    let now = lab.now();
    let mut panes = vec![server_pane(lab)];
    panes[0].view.theme = c.theme;
    panes.extend(lab.clients.iter().enumerate().map(|(n, client)| {
        let mut pane = client_pane(client, now, c.fps);
        pane.selected = n == c.selected;
        pane.view.theme = c.theme;
        pane
    }));
    let lanes = lab
        .clients
        .iter()
        .map(|client| {
            // Both rows on the one time axis the slower direction needs.
            let span = super::wire::span(&client.up, &client.down);
            LaneView {
                label: format!("client {} {}", client.number, client.profile),
                span_ms: span.as_millis() as u64,
                links: lane_links(client),
                buffer: buffer_text(lab, client),
                up: client.up.dots(now, span),
                down: client.down.dots(now, span),
            }
        })
        .collect();
    // Nothing on screen changes while paused: not even the frame rate.
    let state = if c.paused {
        "⏸ PAUSED (. = one tick)".to_owned()
    } else {
        format!("▶ {}x   {:.0} fps", speed_text(c.speed), c.fps)
    };
    let selected = lab.clients.get(c.selected).map_or(0, |cl| cl.number);
    let mut panels = Vec::new();
    let mut overlay = None;
    if let Some(client) = lab.clients.get(c.selected) {
        let (ladder, follow) = super::ladder::panels(lab, client, c.follow, c.theme);
        if c.over == Over::Ladder {
            overlay = Some(ladder);
        } else {
            panels.push(ladder);
        }
        panels.extend(follow);
    }
    let meters = super::meters::panel(lab, c.theme);
    if c.over == Over::Meters {
        overlay = Some(meters);
    } else {
        panels.push(meters);
    }
    panels.extend(super::verdicts::panel(lab));
    LabView {
        panes,
        lanes,
        panels,
        overlay,
        clock: format!(
            " netarena lab   {state}   t {:.3} s   server tick {}   keys act on client {selected}   ? help",
            lab.elapsed().as_secs_f64(),
            lab.server().world().tick,
        ),
        paused: c.paused,
        message: c.message.to_owned(),
        help: c.help,
        theme: c.theme,
        columns: None,
    }
}

pub(crate) fn speed_text(speed: f64) -> String {
    let s = format!("{speed:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Every player and projectile where the server has them, and its rail shots with the
/// rewound hitbox it tested.
fn server_pane(lab: &Lab) -> Pane<'_> {
    let server = lab.server();
    let game = server.game();
    let mut sprites: Vec<Sprite> = game
        .projectiles()
        .iter()
        .map(|p| {
            let (x, y) = cells(p.x, p.y);
            Sprite::new(p.owner, x, y, SpriteKind::Projectile)
        })
        .collect();
    let mut beams = Vec::new();
    for rail in &lab.rails {
        let s = rail.shot;
        beams.push(Beam {
            id: s.shooter,
            from: cells(s.from.0, s.from.1),
            to: cells(s.to.0, s.to.1),
            fading: now_secs(lab, rail.at) > 0.5,
        });
        let id = s.hit.unwrap_or(s.shooter);
        for (p, kind) in [
            (s.tested_at, SpriteKind::TestedBox),
            (s.present_at, SpriteKind::PresentBox),
        ] {
            if let Some((x, y)) = p {
                let (x, y) = cells(x, y);
                sprites.push(Sprite::new(id, x, y, kind));
            }
        }
    }
    for &(id, state) in server.world().players() {
        if game.is_alive(id) {
            let (x, y) = at(state);
            sprites.push(Sprite::new(id, x, y, SpriteKind::Remote));
        }
    }
    let acks: Vec<String> = lab
        .clients
        .iter()
        .map(|c| format!("c{} #{}", c.number, c.acks.server_ack))
        .collect();
    let focus = lab
        .clients
        .first()
        .and_then(|c| server.world().get(c.driver.session().player_id()))
        .map(at);
    Pane {
        title: format!("server · {} players", server.player_count()),
        view: plain_view(lab, sprites, beams),
        focus,
        status: format!("acked: {}", acks.join("  ")),
        selected: false,
    }
}

fn now_secs(lab: &Lab, at: Instant) -> f64 {
    lab.now().saturating_duration_since(at).as_secs_f64()
}

fn plain_view(lab: &Lab, sprites: Vec<Sprite>, beams: Vec<Beam>) -> View<'_> {
    View {
        map: lab.server().game().map(),
        focus: None,
        protected: Vec::new(),
        sprites,
        beams,
        combat: None,
        feed: Vec::new(),
        chat: Vec::new(),
        chat_input: None,
        scoreboard: None,
        results: None,
        hud: Hud {
            fps: 0.0,
            rtt_ms: 0.0,
            rtt_stale: false,
            server_tick: lab.server().world().tick,
            pending: 0,
            corrections: 0,
            switches: SwitchLights::default(),
            conditions: String::new(),
        },
        roster: Vec::new(),
        notice: None,
        stats: None,
        help: false,
        explanation: None,
        theme: Theme::default(),
    }
}

/// Exactly what the client draws, with its own status line.
fn client_pane(c: &LabClient, now: Instant, fps: f64) -> Pane<'_> {
    let s = c.driver.session();
    let view = c.driver.view(now, fps, c.rates.rates());
    let keys = match (c.is_bot(), c.number) {
        (false, 1) => " · WASD",
        (false, _) => " · arrows",
        (true, _) => " · bot",
    };
    let status = client_status(c);
    Pane {
        title: format!(
            "client {} = {}{keys}",
            c.number,
            crate::ui::player_glyph(s.player_id())
        ),
        view,
        focus: s.predicted().map(at),
        status,
        selected: false,
    }
}

/// A client pane's status line: its profile, RTT, commands pending, corrections, switches.
pub(super) fn client_status(c: &LabClient) -> String {
    let s = c.driver.session();
    // The newest command's seq beside the count not yet acknowledged: the server view's
    // `acked: c1 #seq` is the one the server has applied, to compare.
    format!(
        "{} rtt {:.0}ms sent #{} pend {} corr {} {}",
        c.profile,
        s.stats().rtt_ms,
        s.latest_seq(),
        s.pending_commands(),
        s.stats().corrections,
        switch_letters(s.switches())
    )
}

/// Each way of a client's link, up then down: a link may differ each way, and half
/// the RTT is then neither way's delay.
pub(super) fn lane_links(c: &LabClient) -> [String; 2] {
    [way_text(c.up.conditions()), way_text(c.down.conditions())]
}

/// One way of a link: `150ms ±40 5%` (±: the range the delay walks over).
fn way_text(c: &Conditions) -> String {
    let mut s = format!("{}ms", c.latency_ms);
    if c.jitter_ms > 0 {
        s.push_str(&format!(" ±{}", c.jitter_ms));
    }
    if c.loss_pct > 0.0 {
        s.push_str(&format!(" {}%", c.loss_pct));
    }
    s
}

/// The switches as their keys, `-` for off: `prixmg`.
fn switch_letters(s: Switches) -> String {
    [
        ('p', s.prediction),
        ('r', s.reconciliation),
        ('i', s.interpolation),
        ('x', s.extrapolation),
        ('m', s.smoothing),
        ('g', s.ghosts.server()),
    ]
    .iter()
    .map(|&(k, on)| if on { k } else { '-' })
    .collect()
}

/// Whether the client's command clock is dilated: `slow` while it drains a backlog on
/// the server, `fast` while it refills, `even` otherwise.
pub(crate) fn dilation(s: &ClientSession) -> &'static str {
    let scale = s.command_period_scale();
    if scale > 1.0 {
        "slow"
    } else if scale < 1.0 {
        "fast"
    } else {
        "even"
    }
}

/// The server's input buffer for a client, as its lane shows it: commands queued over
/// the depth aimed at (0: the credit queue), commands applied on each of the last four
/// ticks, late commands (caught up or not), dropped commands (and, when any, those
/// that never arrived: `lost 3`), and the client's command clock: `q2/2 1111 late 0
/// drop 0 even`.
/// A variable-rate client's (the command-rate dial) shows instead what the server
/// applied as it arrived: its frame rate, the time applied on each of the last four
/// ticks in sixteenths of a tick, the commands waiting for the time budget and those
/// refused: `var 144/s 16 20 13 16 wait 0 ref 0`.
fn buffer_text(lab: &Lab, c: &LabClient) -> String {
    let s = c.driver.session();
    let Some(f) = lab.server().input_buffer(s.player_id()) else {
        return String::new();
    };
    if let (Some(fps), Some(a)) = (s.frame_rate(), lab.server().arrivals(s.player_id())) {
        let ticks: Vec<String> = a.per_tick[a.per_tick.len() - 4..]
            .iter()
            .map(u16::to_string)
            .collect();
        let lost = if f.lost > 0 {
            format!(" lost {}", f.lost)
        } else {
            String::new()
        };
        return format!(
            "var {fps}/s {} wait {} ref {}{lost}",
            ticks.join(" "),
            a.waiting,
            a.refused
        );
    }
    let applied: String = f.applied[f.applied.len() - 4..]
        .iter()
        .map(|&n| char::from_digit(u32::from(n.min(9)), 10).unwrap_or('+'))
        .collect();
    format!(
        "q{}/{} {applied} late {} drop {}{} {}",
        f.queued,
        f.target,
        f.late,
        f.dropped,
        if f.lost > 0 {
            format!(" lost {}", f.lost)
        } else {
            String::new()
        },
        dilation(s)
    )
}
