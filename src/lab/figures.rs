//! Read access for the truth tests (`tests/integration/truth.rs`): the figures a lab
//! client shows (its HUD, stats overlay and pane), and the ground truth the lab holds
//! beside them (what crossed each link, what the server acknowledged).

use super::Lab;
pub use super::wire::{Carried, Crossing};
use crate::net::conditioner::Conditions;

/// The figures client `n` shows now, as numbers, each from the very value drawn.
#[doc(hidden)]
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// The HUD's and the stats overlay's RTT.
    pub rtt_ms: f64,
    /// The stats overlay's jitter: the mean absolute deviation of snapshot arrivals.
    pub jitter_ms: f64,
    pub snapshots_per_sec: f64,
    pub packets_in_per_sec: f64,
    pub packets_out_per_sec: f64,
    pub bytes_in_per_sec: f64,
    pub bytes_out_per_sec: f64,
    pub loss_up_pct: f64,
    pub loss_down_pct: f64,
    /// The HUD's `pend` (the stats overlay's `pending` is the same value).
    pub pending: u32,
    pub stats_pending: u32,
    /// The stats overlay's interpolation delay: how far behind the newest snapshot's
    /// arrival remote players are drawn.
    pub interp_delay_ms: f64,
    /// The client's pane's status line, and its lane's link each way (up, down).
    pub pane_status: String,
    pub lane_links: [String; 2],
}

/// One direction of a client's link.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Client to server: input packets.
    Up,
    /// Server to client: snapshots and the rest.
    Down,
}

impl Lab {
    /// What client `n` (0-based) shows now.
    #[doc(hidden)]
    pub fn figures(&self, n: usize) -> Figures {
        let c = &self.clients[n];
        let now = self.now;
        let stats = c.driver.stats_view(now, c.rates.rates());
        let view = c.driver.view(now, 0.0, c.rates.rates());
        Figures {
            rtt_ms: view.hud.rtt_ms,
            jitter_ms: stats.jitter_ms,
            snapshots_per_sec: stats.snapshots_per_sec,
            packets_in_per_sec: stats.packets_in,
            packets_out_per_sec: stats.packets_out,
            bytes_in_per_sec: stats.bytes_in,
            bytes_out_per_sec: stats.bytes_out,
            loss_up_pct: stats.loss_up_pct,
            loss_down_pct: stats.loss_down_pct,
            pending: view.hud.pending,
            stats_pending: stats.pending,
            interp_delay_ms: stats.interp_delay_ms,
            pane_status: super::view::client_status(c),
            lane_links: super::view::lane_links(c),
        }
    }

    /// What crossed client `n`'s link one way: its newest datagrams, oldest first.
    #[doc(hidden)]
    pub fn crossings(&self, n: usize, way: Way) -> Vec<Crossing> {
        let c = &self.clients[n];
        let lane = match way {
            Way::Up => &c.up,
            Way::Down => &c.down,
        };
        lane.log().iter().copied().collect()
    }

    /// The conditions of client `n`'s link one way.
    #[doc(hidden)]
    pub fn link(&self, n: usize, way: Way) -> Conditions {
        let c = &self.clients[n];
        match way {
            Way::Up => c.up.conditions().clone(),
            Way::Down => c.down.conditions().clone(),
        }
    }

    /// The newest command seq acknowledged by a snapshot client `n` has received.
    #[doc(hidden)]
    pub fn ack_delivered(&self, n: usize) -> u32 {
        self.clients[n].acks.ack_delivered
    }

    /// The server tick remote players are drawn at in client `n`'s view now.
    #[doc(hidden)]
    pub fn render_tick(&self, n: usize) -> Option<f64> {
        self.clients[n].driver.session().render_tick(self.now)
    }

    /// The server's present, in ticks (fractional: the time since its last tick).
    #[doc(hidden)]
    pub fn server_ticks_now(&self) -> f64 {
        let last = self.next_tick - self.tick;
        let since = self.now.saturating_duration_since(last).as_secs_f64();
        f64::from(self.server.world().tick) + since / self.tick.as_secs_f64()
    }
}
