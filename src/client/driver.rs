//! The one client loop body, without I/O: a [`ClientSession`] (the netcode), an [`App`]
//! (the player's state) and a [`CommandClock`] (when commands are made). The terminal
//! client, the headless client and the lab (the tests' stepper too) all step a session
//! through [`command_ticks`]; every method takes the time it happens, so several drivers
//! can share one virtual clock.

use std::time::Instant;

use super::Switches;
use super::dials::{self, Settings};
use super::keyframe::{self, KeyframeError};
use super::netcode::cadence::CommandClock;
use super::netcode::rates::Rates;
use super::netcode::session::{ClientSession, SessionEnd};
use super::play::app::{App, Effect};
use super::play::input::{Action, ChatKey};
use super::tap::{Tap, TapEvent};
use super::view;
use crate::net::protocol::{ClientMsg, ServerMsg};
use crate::sim::world::{Buttons, Command};
use crate::ui::View;

/// Runs every command due at `now` on `clock`: `brain` makes each one, the session
/// predicts it, and `after` gets the session and the input packet (if one is due).
pub fn command_ticks(
    session: &mut ClientSession,
    clock: &mut CommandClock,
    now: Instant,
    mut brain: impl FnMut(&ClientSession, Instant) -> Command,
    mut after: impl FnMut(&mut ClientSession, Option<ClientMsg>),
) {
    // The backlog slow-down only changes when a snapshot arrives, never between ticks;
    // so does the tick rate.
    clock.follow_tick_rate(session.tick_rate().round() as u16);
    for _ in 0..clock.take_due(now, session.command_period_scale()) {
        let cmd = brain(session, now);
        let msg = session.command_tick(now, cmd);
        after(session, msg);
    }
}

pub(crate) struct Driver {
    session: ClientSession,
    app: App,
    clock: CommandClock,
    /// What the view remembers between frames (feedback on changes).
    memory: view::Memory,
    /// Sees every input (a recorder); the commands of one instant are gathered first.
    tap: Option<Box<dyn Tap>>,
    made: Vec<Command>,
    last_time: Option<Instant>,
}

impl Driver {
    /// Drives `session` for the player in `app`, the first command at `first_command`.
    pub(crate) fn new(session: ClientSession, app: App, first_command: Instant) -> Driver {
        let tick_rate = session.tick_rate().round() as u16;
        Driver {
            session,
            app,
            clock: CommandClock::for_tick_rate(tick_rate, first_command),
            memory: view::Memory::default(),
            tap: None,
            made: Vec::new(),
            last_time: None,
        }
    }

    /// Goes on with `session`, a new session with the same server (it restarted and we
    /// joined again): the player's switches, settings and overlays stay, the netcode
    /// starts over.
    /// A recording cannot hold two sessions, so the tap is handed back, to be finished.
    pub(crate) fn rejoined(
        &mut self,
        mut session: ClientSession,
        now: Instant,
    ) -> Option<Box<dyn Tap>> {
        session.set_switches(self.session.switches());
        session.set_correction(self.session.correction());
        session.set_tuning(self.session.tuning());
        let tick_rate = session.tick_rate().round() as u16;
        self.session = session;
        self.clock = CommandClock::for_tick_rate(tick_rate, now);
        self.memory = view::Memory::default();
        self.made.clear();
        self.last_time = None;
        self.tap.take()
    }

    /// Hands every input from now on to `tap` (already started).
    pub(crate) fn set_tap(&mut self, tap: Box<dyn Tap>) {
        self.tap = Some(tap);
    }

    /// The terminal's size, for a replay to show the same picture.
    pub(crate) fn note_size(&mut self, w: u16, h: u16) {
        self.note(None, TapEvent::Size(w, h));
    }

    /// A copy of the loop's state without the tap: a replay keyframe.
    pub(crate) fn fork(&self) -> Driver {
        Driver {
            session: self.session.clone(),
            app: self.app.clone(),
            clock: self.clock.clone(),
            memory: self.memory.clone(),
            tap: None,
            made: Vec::new(),
            last_time: self.last_time,
        }
    }

    /// The loop's state as a keyframe (what [`Driver::fork`] copies), its instants
    /// counted from `base`: a replay can start from it ([`Driver::from_keyframe`]).
    pub(crate) fn keyframe(&self, base: Instant) -> Result<Vec<u8>, KeyframeError> {
        let state = keyframe::StateRef {
            session: &self.session,
            app: &self.app,
            clock: &self.clock,
            memory: &self.memory,
        };
        keyframe::encode(&state, base)
    }

    /// The loop as a keyframe left it, its instants counted from `base`.
    pub(crate) fn from_keyframe(bytes: &[u8], base: Instant) -> Result<Driver, KeyframeError> {
        let s = keyframe::decode(bytes, base)?;
        Ok(Driver {
            session: s.session,
            app: s.app,
            clock: s.clock,
            memory: s.memory,
            tap: None,
            made: Vec::new(),
            last_time: None,
        })
    }

    /// Hands the tap a keyframe if it wants one now (once every few tens of seconds).
    fn offer_keyframe(&mut self, now: Instant) {
        let Some(base) = self.tap.as_mut().and_then(|t| t.keyframe_due(now)) else {
            return;
        };
        let bytes = self.keyframe(base);
        if let Some(tap) = &mut self.tap {
            tap.keyframe(now, bytes.as_deref().map_err(|e| e.to_string()));
        }
    }

    pub(crate) fn tap_mut(&mut self) -> Option<&mut (dyn Tap + 'static)> {
        self.tap.as_deref_mut()
    }

    /// Why the tap stopped keeping the session, if it did.
    pub(crate) fn tap_failure(&self) -> Option<String> {
        self.tap.as_ref()?.failure()
    }

    fn note(&mut self, at: Option<Instant>, event: TapEvent<'_>) {
        if let Some(at) = at {
            self.last_time = Some(at);
        }
        if let (Some(tap), Some(at)) = (&mut self.tap, self.last_time) {
            tap.event(at, event);
        }
    }

    pub(crate) fn session(&self) -> &ClientSession {
        &self.session
    }

    pub(crate) fn app(&self) -> &App {
        &self.app
    }

    /// One message from the server, `wire_bytes` long as received.
    pub(crate) fn receive(
        &mut self,
        now: Instant,
        msg: ServerMsg,
        wire_bytes: usize,
    ) -> Option<SessionEnd> {
        if self.tap.is_some() {
            self.note(
                Some(now),
                TapEvent::Received {
                    msg: &msg,
                    wire_bytes,
                },
            );
        }
        self.session.on_message(now, msg, wire_bytes)
    }

    /// An action from the player. A switch key flips the switch in the session; what
    /// is left for the caller (quit, new network conditions) comes back.
    pub(crate) fn handle(&mut self, action: Action) -> Option<Effect> {
        self.note(None, TapEvent::Action(action));
        let effect = self.app.handle(action);
        self.apply(effect)
    }

    /// One key into the chat editor; a finished line comes back as [`Effect::Chat`].
    pub(crate) fn type_chat(&mut self, key: ChatKey) -> Option<Effect> {
        self.note(None, TapEvent::Chat(key));
        let effect = self.app.type_chat(key);
        self.apply(effect)
    }

    /// Whether a chat line may go at `now` (the server's rate); if not the player is
    /// told so.
    pub(crate) fn may_send_chat(&mut self, now: Instant) -> bool {
        self.app.may_send_chat(now)
    }

    fn apply(&mut self, effect: Option<Effect>) -> Option<Effect> {
        match effect {
            Some(Effect::Toggle(which)) => {
                self.set_switches(self.session.switches().toggled(which));
                None
            }
            other => other,
        }
    }

    /// The keyboard path: the commands due at `now` for the buttons held, each input
    /// packet handed to `send`.
    pub(crate) fn play(&mut self, now: Instant, keys: Buttons, mut send: impl FnMut(ClientMsg)) {
        self.note(Some(now), TapEvent::Keys(keys));
        let buttons = self.app.held(keys);
        self.clock.hold(now, buttons);
        // One `command` a tick: the app counts ticks (a diagonal's release grace).
        let app = &mut self.app;
        command_ticks(
            &mut self.session,
            &mut self.clock,
            now,
            |s, _| app.command(buttons, s.tick_rate()),
            |_, msg| msg.into_iter().for_each(&mut send),
        );
    }

    /// The scripted path: `brain` makes each command due at `now`; `after` sees each.
    pub(crate) fn run_ticks(
        &mut self,
        now: Instant,
        mut brain: impl FnMut(&ClientSession, Instant) -> Command,
        after: impl FnMut(&mut ClientSession, Option<ClientMsg>),
    ) {
        let Some(tap) = &mut self.tap else {
            command_ticks(&mut self.session, &mut self.clock, now, brain, after);
            return;
        };
        let made = &mut self.made;
        made.clear();
        let brain = |s: &ClientSession, t: Instant| {
            let cmd = brain(s, t);
            made.push(cmd);
            cmd
        };
        command_ticks(&mut self.session, &mut self.clock, now, brain, after);
        if !made.is_empty() {
            self.last_time = Some(now);
            tap.event(now, TapEvent::Ticks(made));
            self.offer_keyframe(now);
        }
    }

    /// The simulated link dropped `msg` as it was sent at `at`: an input packet's loss
    /// goes to the tap (the replay's timeline then knows it for certain).
    pub(crate) fn link_dropped(&mut self, at: Instant, msg: &ClientMsg) {
        if let ClientMsg::Input(p) = msg {
            self.note(
                Some(at),
                TapEvent::Dropped {
                    packet: p.packet_seq,
                },
            );
        }
    }

    /// When the next command is due: the latest a loop may sleep until.
    pub(crate) fn next_command(&self) -> Instant {
        self.clock.next_due()
    }

    /// Advances per-frame state; call once per drawn frame.
    pub(crate) fn frame(&mut self, now: Instant) {
        self.note(Some(now), TapEvent::Frame);
        self.session.frame(now);
        self.memory.update(&self.session, now);
        self.offer_keyframe(now);
    }

    /// Whether the picture may change with time alone: the loop then looks again soon.
    pub(crate) fn in_motion(&self, now: Instant) -> bool {
        view::in_motion(&self.session, now)
    }

    /// The settings no datagram carries: the player's dials, the correction style, the
    /// snapshot interval.
    pub(crate) fn settings(&self) -> Settings {
        Settings::of(&self.session)
    }

    /// Puts `settings` in force at `now` (a dial turned, in the game or the lab); the
    /// tap hears it, so a replay does the same at the same time. What it changed, in
    /// the dials' words, comes back (None if nothing changed).
    pub(crate) fn set_settings(&mut self, now: Instant, settings: Settings) -> Option<String> {
        let before = self.settings();
        if before == settings {
            return None;
        }
        settings.apply_to(&mut self.session);
        // As the session keeps them (within their bounds), so a replay sets the same.
        let after = self.settings();
        self.note(Some(now), TapEvent::Settings(after));
        dials::explain_change(&self.session, &before, &after)
    }

    /// Turns the player's dial `d` (of `dials::DIALS`) one step up or down at `now`;
    /// what that makes, in derived numbers (at its top or bottom, what it stays at).
    pub(crate) fn turn_dial(&mut self, now: Instant, d: usize, up: bool) -> String {
        let Some(dial) = dials::DIALS.get(d) else {
            return String::new();
        };
        match dials::turned(dial, self.settings(), up) {
            Some(s) => self
                .set_settings(now, s)
                .unwrap_or_else(|| (dial.explain)(&self.session)),
            None => format!(
                "{} (at its {})",
                (dial.explain)(&self.session),
                if up { "top" } else { "bottom" }
            ),
        }
    }

    /// Sets how remote players are corrected onto a snapshot that disagrees with where
    /// they were drawn (a flag's setting, before the session starts).
    pub(crate) fn set_correction(&mut self, style: crate::client::CorrectionStyle) {
        self.session.set_correction(style);
    }

    /// Sets the switches outright (a replay's what-if): the path every switch key
    /// takes too.
    pub(crate) fn set_switches(&mut self, switches: Switches) {
        self.session.set_switches(switches);
    }

    /// Puts the correction-loop bug back (the lab's A/B runs only, which are never
    /// recorded: no tap hears it; see `ClientSession::set_correction_loop`).
    pub(crate) fn set_correction_loop(&mut self, on: bool) {
        self.session.set_correction_loop(on);
    }

    /// Makes the client cheat: its command clock `rate` times the server's (the
    /// lab's lessons only, never recorded; see `ClientSession::set_clock_rate`).
    pub(crate) fn set_clock_rate(&mut self, rate: f64) {
        self.session.set_clock_rate(rate);
    }

    /// The session, for a test to set it directly (no tap hears it: dials go through
    /// [`Driver::set_settings`]).
    #[cfg(test)]
    pub(crate) fn session_mut(&mut self) -> &mut ClientSession {
        &mut self.session
    }

    /// What a replayed frame shows: no link to measure rates on.
    pub(crate) fn replay_view(&self, now: Instant, fps: f64) -> View<'_> {
        view::build(
            &self.session,
            &self.app,
            &self.memory,
            now,
            fps,
            Rates::default(),
        )
    }

    /// The stats overlay's numbers now, whether or not the overlay is shown.
    pub(crate) fn stats_view(&self, now: Instant, rates: Rates) -> crate::ui::StatsView {
        view::stats(&self.session, now, rates)
    }

    /// What this frame shows, at `fps`, with `rates` for the stats overlay.
    pub(crate) fn view(&self, now: Instant, fps: f64, rates: Rates) -> View<'_> {
        view::build(&self.session, &self.app, &self.memory, now, fps, rates)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::client::Switches;
    use crate::net::conditioner::Conditions;
    use crate::net::delta;
    use crate::net::protocol::{PlayerSnap, Snapshot};
    use crate::sim::map::Map;
    use crate::sim::world::PlayerState;

    fn driver(id: u8, t0: Instant) -> Driver {
        let map = Map::builtin("duel").unwrap();
        let session = ClientSession::on_duel(id, t0);
        let mut d = Driver::new(session, App::new(Conditions::default()), t0);
        let (x, y) = map.spawns()[0];
        let snap = Snapshot {
            tick: 1,
            players: vec![PlayerSnap {
                id,
                state: PlayerState::at_cell(x, y),
            }],
            ..Default::default()
        };
        let msg = ServerMsg::Snapshot(delta::encode(&snap, None));
        assert_eq!(d.receive(t0, msg, 100), None);
        d
    }

    /// Input packets sent by `d` while stepped every millisecond with `keys` held.
    fn input_packets(
        d: &mut Driver,
        t0: Instant,
        ms: std::ops::Range<u64>,
        keys: Buttons,
    ) -> usize {
        let mut sent = 0;
        for n in ms {
            d.play(t0 + Duration::from_millis(n), keys, |_| sent += 1);
        }
        sent
    }

    #[test]
    fn drivers_share_a_virtual_clock_and_keys_reach_the_session() {
        let t0 = Instant::now();
        let (mut a, mut b) = (driver(1, t0), driver(2, t0));
        // A quarter second standing still: one command a tick, a packet every other.
        assert_eq!(input_packets(&mut a, t0, 0..251, Buttons::empty()), 8);
        assert_eq!(input_packets(&mut b, t0, 0..251, Buttons::empty()), 8);
        assert_eq!(a.session().stats().commands_sent, 16);
        // A key pressed between ticks goes at once, not at the next tick.
        let before = a.session().stats().commands_sent;
        a.play(t0 + Duration::from_millis(260), Buttons::RIGHT, |_| {});
        assert_eq!(a.session().stats().commands_sent, before + 1);
        assert!(a.session().predicted().unwrap().vx > 0, "moving right");
        assert_eq!(b.session().predicted().unwrap().vx, 0, "b untouched");
        // A switch key reaches the session; a network key comes back for the link.
        assert_eq!(a.handle(Action::TogglePrediction), None);
        assert!(!a.session().switches().prediction && !a.session().switches().reconciliation);
        assert!(matches!(
            a.handle(Action::LagUp),
            Some(Effect::Conditions(_))
        ));
        a.handle(Action::OpenChat);
        for c in "gg".chars() {
            a.type_chat(ChatKey::Char(c));
        }
        assert_eq!(a.type_chat(ChatKey::Send), Some(Effect::Chat("gg".into())));
    }

    /// The switches had two copies, the app's and the session's, and a replay's what-if
    /// set only the session's: the next switch key then flipped the app's stale copy
    /// and undid the what-if (interpolation came back on here with smoothing going
    /// off). One copy, the session's, is flipped by keys and set by what-ifs alike.
    #[test]
    fn a_switch_key_after_a_what_if_flips_the_switches_in_force() {
        let t0 = Instant::now();
        let mut d = driver(1, t0);
        let what_if = Switches {
            interpolation: false,
            ..Switches::default()
        };
        d.set_switches(what_if);
        assert_eq!(d.handle(Action::ToggleSmoothing), None);
        let expected = Switches {
            smoothing: false,
            ..what_if
        };
        assert_eq!(d.session().switches(), expected);
        // Reconciliation without prediction stays off, whichever way it is asked for.
        d.set_switches(Switches::default().toggled(crate::client::Switch::Prediction));
        assert_eq!(d.handle(Action::ToggleReconciliation), None);
        assert!(!d.session().switches().reconciliation);
    }

    /// Snapshots stopping showed nothing until the client gave up at 5 s: now a banner
    /// counts the seconds, the RTT is marked stale and the lagometer turns red.
    #[test]
    fn a_silent_link_is_shown_at_once() {
        let t0 = Instant::now();
        let mut d = driver(1, t0);
        let at = |ms| t0 + Duration::from_millis(ms);
        d.frame(at(200));
        let v = d.view(at(200), 60.0, Rates::default());
        assert_eq!((v.notice.is_none(), v.hud.rtt_stale), (true, false));
        let last = |d: &Driver| d.session().lagometer().recent(1).last().copied();
        assert!(!last(&d).unwrap().interrupted);
        d.frame(at(1500));
        let v = d.view(at(1500), 60.0, Rates::default());
        assert_eq!(
            v.notice.as_deref(),
            Some("connection interrupted: no snapshot for 1.5 s")
        );
        assert!(v.hud.rtt_stale);
        assert!(last(&d).unwrap().interrupted);
    }

    /// Hears the settings a driver hands its tap.
    struct Settled(std::rc::Rc<std::cell::RefCell<Vec<(Instant, Settings)>>>);

    impl Tap for Settled {
        fn start(
            &mut self,
            _: Instant,
            _: crate::client::tap::LoopKind,
            _: &crate::net::protocol::Welcome,
            _: &crate::client::ClientConfig,
        ) {
        }
        fn event(&mut self, at: Instant, event: TapEvent<'_>) {
            if let TapEvent::Settings(s) = event {
                self.0.borrow_mut().push((at, s));
            }
        }
        fn finish(&mut self, _: crate::client::tap::LinkTotals) {}
    }

    /// Issue 23: the game's dial keys. `k` chooses one of the player's own dials, `]`
    /// and `[` turn it; each turn changes the session's settings, says what it makes in
    /// derived numbers, and reaches the tap at its time.
    #[test]
    fn dial_keys_turn_the_players_own_settings() {
        use crate::client::CorrectionStyle;
        use crate::client::play::input::{Bindings, Keys};
        use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

        let t0 = Instant::now();
        let mut d = driver(1, t0);
        let heard = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        d.set_tap(Box::new(Settled(heard.clone())));
        let mut keys = Keys::with_bindings(false, Bindings::default());
        // A key as the game's screen takes it: its action, then the turn it asks for.
        let mut press = |d: &mut Driver, c: char, at: Instant| -> Option<String> {
            let ev = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
            let action = keys.handle(&ev, at).expect("a bound key");
            match d.handle(action) {
                Some(Effect::Turn { dial, up }) => Some(d.turn_dial(at, dial, up)),
                None => crate::client::explain::explain(d, action, "your"),
                other => panic!("{other:?}"),
            }
        };
        let t = |ms: u64| t0 + Duration::from_millis(ms);
        // The interpolation delay comes first; automatic is its top step.
        let text = press(&mut d, ']', t(10)).unwrap();
        assert!(text.ends_with("(at its top)"), "{text}");
        assert!(heard.borrow().is_empty(), "nothing changed");
        let text = press(&mut d, '[', t(20)).unwrap();
        assert_eq!(d.session().tuning().interp_ratio, Some(4.0));
        // Snapshots every 3 ticks at 60 Hz: 50 ms apart.
        assert!(
            text.starts_with("interpolation delay 4 x 50 ms snapshot period = 200 ms"),
            "{text}"
        );
        let text = press(&mut d, 'k', t(30)).unwrap();
        assert_eq!(text, "dial: input rate (30/s); [ ] turn it down / up");
        let text = press(&mut d, ']', t(40)).unwrap();
        assert_eq!(d.session().tuning().input_rate, 60);
        assert!(
            text.starts_with(
                "input packets 60/s while keys stay the same: one every 1 tick = 17 ms"
            ),
            "{text}"
        );
        press(&mut d, 'k', t(50));
        let text = press(&mut d, '[', t(60)).unwrap();
        assert_eq!(d.session().tuning().redundancy, 32);
        assert!(text.starts_with("redundancy 32 copies = 533 ms"), "{text}");
        press(&mut d, 'k', t(70));
        press(&mut d, ']', t(80));
        assert_eq!(d.session().correction(), CorrectionStyle::Blend);
        // `K` goes back: the correction style again, then the redundancy.
        press(&mut d, 'K', t(90));
        assert_eq!(d.app().dial(), 2);
        // Each change reached the tap at its time, as the session holds it.
        let heard = heard.borrow();
        let times: Vec<Instant> = heard.iter().map(|(at, _)| *at).collect();
        assert_eq!(times, [t(20), t(40), t(60), t(80)]);
        assert_eq!(heard.last().unwrap().1, d.settings());
    }
}
