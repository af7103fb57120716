//! Who is playing: the slots (remote clients and bots), joining and leaving, dropping
//! the silent, and the roster every client's scoreboard shows.

use std::net::SocketAddr;
use std::time::Instant;

use super::bots::FightBot;
use super::commands::CommandQueue;
use super::config::PLAYER_LIMIT;
use super::connection::{Connection, Controller};
use super::on_arrival::OnArrival;
use super::{Server, ServerEvent};
use netarena_net::protocol::{GameEvent, MAX_NAME_CHARS, RosterEntry, ServerMsg};
use netarena_net::roster_pages;
use netarena_sim::world::PlayerId;

#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) id: PlayerId,
    pub(crate) name: String,
    pub(crate) queue: CommandQueue,
    /// Its variable-rate commands (`on_arrival.rs`).
    pub(crate) arrival: OnArrival,
    pub(crate) controller: Controller,
    /// Seq the bot's next command gets: bots number commands like clients do.
    pub(crate) bot_seq: u32,
}

impl Slot {
    /// Queues events for a remote slot, to be resent until acknowledged.
    pub(super) fn push_events(&mut self, events: &[GameEvent]) {
        if let Controller::Remote(c) = &mut self.controller {
            c.events.push(events);
        }
    }
}

fn bot_slots(slots: &[Slot]) -> impl Iterator<Item = &Slot> {
    slots
        .iter()
        .filter(|s| matches!(s.controller, Controller::Bot(_)))
}

fn bot_name(n: u16) -> String {
    format!("bot-{}", n + 1)
}

impl Server {
    /// `name`, or if someone in the game already has it, `name-2`, `name-3`, … (cut to
    /// fit the name limit): two friends on machines with the same login are told apart
    /// on the scoreboard and in the kill feed.
    fn unique_name(&self, name: String) -> String {
        let taken = |n: &str| self.slots.iter().any(|s| s.name == n);
        if !taken(&name) {
            return name;
        }
        (2..)
            .map(|n| {
                let suffix = format!("-{n}");
                let keep = MAX_NAME_CHARS.saturating_sub(suffix.len());
                name.chars().take(keep).collect::<String>() + &suffix
            })
            .find(|candidate| !taken(candidate))
            .expect("fewer players than numbers")
    }

    pub(super) fn add_player(&mut self, name: String, controller: Controller) -> Option<PlayerId> {
        if self.is_full() {
            return None;
        }
        let id = self.free_id()?;
        let name = self.unique_name(name);
        let from = match &controller {
            Controller::Remote(c) => Some(c.addr),
            Controller::Bot(_) => None,
        };
        // Bots' commands are made on the tick that applies them: nothing to buffer.
        let queue = match &controller {
            Controller::Remote(_) => CommandQueue::new(self.config.input_buffer),
            Controller::Bot(_) => CommandQueue::default(),
        };
        let spawn = self.world.spawn_point(&self.map, id);
        let tick = self.world.tick;
        let status = self.game.join(id, spawn, tick, &mut self.world);
        self.broadcast(vec![status]);
        self.events.push(ServerEvent::Joined {
            id,
            name: name.clone(),
            from,
        });
        let at = self.slots.partition_point(|s| s.id < id);
        self.slots.insert(
            at,
            Slot {
                id,
                name,
                queue,
                arrival: OnArrival::default(),
                controller,
                bot_seq: 0,
            },
        );
        if let Some(addr) = from {
            self.by_addr.insert(addr, id);
            // Bring the newcomer up to date: the match, and everyone's standing.
            let mut intro = vec![self.game.start_event(false)];
            intro.extend(self.game.statuses().into_iter().map(GameEvent::Status));
            self.slots[at].push_events(&intro);
        }
        self.roster_dirty = true;
        Some(id)
    }

    pub(super) fn remove_player(&mut self, id: PlayerId, reason: &'static str) {
        let Some(at) = self.slots.iter().position(|s| s.id == id) else {
            return;
        };
        let Slot {
            name, controller, ..
        } = self.slots.remove(at);
        let remote = matches!(controller, Controller::Remote(_));
        if let Controller::Remote(c) = controller {
            // Another session may have moved to this address since (a NAT reuses ports).
            if self.by_addr.get(&c.addr) == Some(&id) {
                self.by_addr.remove(&c.addr);
            }
            // Its keys stay until the outbox is sent: its goodbye goes sealed.
            self.departed.insert(id, (c.addr, c.session));
        }
        self.game.leave(id, &mut self.world);
        self.events.push(ServerEvent::Left { id, name, reason });
        self.roster_dirty = true;
        if remote {
            // A human's seat goes back to the bot it may have replaced.
            self.fill_bots();
        }
    }

    /// The id the next player gets: the lowest free one, so below 128 (a sealed
    /// datagram names its session with seven bits).
    pub(super) fn free_id(&self) -> Option<PlayerId> {
        // Not a departed session's id either, while the outbox may hold its messages.
        (0..=u8::MAX)
            .find(|id| self.slots.iter().all(|s| s.id != *id) && !self.departed.contains_key(id))
    }

    pub(super) fn is_full(&self) -> bool {
        self.slots.len() >= usize::from(self.config.max_players.min(PLAYER_LIMIT))
    }

    /// Adds bots, while seats are free, until as many play as the config asks for.
    pub(super) fn fill_bots(&mut self) {
        while !self.is_full() {
            let taken: Vec<&str> = bot_slots(&self.slots).map(|s| s.name.as_str()).collect();
            if taken.len() >= usize::from(self.config.bots) {
                return;
            }
            // The lowest free number: a bot that comes back is the one that left.
            let Some(n) = (0..self.config.bots).find(|n| !taken.contains(&&*bot_name(*n))) else {
                return;
            };
            let seed = self
                .config
                .seed
                .wrapping_mul(0x9E37_79B9)
                .wrapping_add(u64::from(n));
            let bot = FightBot::new(seed, self.config.bot_skill);
            if self
                .add_player(bot_name(n), Controller::Bot(Box::new(bot)))
                .is_none()
            {
                return;
            }
        }
    }

    /// Adds a bot of its own skill, beside the configured ones (tests and tools: e.g. a
    /// weak bot standing in for a newcomer).
    pub fn add_bot(&mut self, name: &str, skill: u8, seed: u64) -> Option<PlayerId> {
        let bot = FightBot::new(seed, skill);
        self.add_player(name.to_owned(), Controller::Bot(Box::new(bot)))
    }

    /// A full server gives a bot's seat (the newest bot's) to a joining human: bots
    /// fill a server, they never keep people out. False if only humans play.
    pub(super) fn make_room(&mut self) -> bool {
        if !self.is_full() {
            return true;
        }
        let bot = self
            .slots
            .iter()
            .rev()
            .find(|s| matches!(s.controller, Controller::Bot(_)))
            .map(|s| s.id);
        match bot {
            Some(id) => {
                self.remove_player(id, "made room for a player");
                true
            }
            None => false,
        }
    }

    /// A player's name for the reports; its id if it has gone.
    pub(super) fn name_of(&self, id: PlayerId) -> String {
        self.slots
            .iter()
            .find(|s| s.id == id)
            .map_or_else(|| format!("#{id}"), |s| s.name.clone())
    }

    /// Queues events for every remote client, to be resent until acknowledged.
    pub(super) fn broadcast(&mut self, events: Vec<GameEvent>) {
        if events.is_empty() {
            return;
        }
        for slot in &mut self.slots {
            slot.push_events(&events);
        }
    }

    /// Drops clients that went silent, and clients too far behind on game events (see
    /// `EventQueue::behind`: no acknowledged progress, and their rate no longer cut).
    pub(super) fn drop_silent_clients(&mut self, now: Instant) {
        let timeout = self.config.client_timeout;
        let gone: Vec<(PlayerId, SocketAddr, &'static str)> = self
            .remotes()
            .filter_map(|(s, c)| {
                if c.events.behind(now, c.delivery.cutting(now)) {
                    Some((s.id, c.addr, "too far behind"))
                } else if now.saturating_duration_since(c.last_heard) > timeout {
                    Some((s.id, c.addr, "timed out"))
                } else {
                    None
                }
            })
            .collect();
        for (id, addr, reason) in gone {
            self.queue(addr, ServerMsg::Bye(reason.to_owned()));
            self.remove_player(id, reason);
        }
    }

    /// The connection of remote player `id`.
    pub(super) fn connection_mut(&mut self, id: PlayerId) -> Option<&mut Connection> {
        self.slots
            .iter_mut()
            .find(|s| s.id == id)
            .and_then(|s| match &mut s.controller {
                Controller::Remote(c) => Some(&mut **c),
                Controller::Bot(_) => None,
            })
    }

    pub(super) fn remotes(&self) -> impl Iterator<Item = (&Slot, &Connection)> {
        self.slots.iter().filter_map(|s| match &s.controller {
            Controller::Remote(c) => Some((s, &**c)),
            Controller::Bot(_) => None,
        })
    }

    /// Sends the roster to the clients whose player ids `to` picks.
    pub(super) fn send_roster(&mut self, to: impl Fn(PlayerId) -> bool) {
        let addrs: Vec<SocketAddr> = self
            .remotes()
            .filter(|(s, _)| to(s.id))
            .map(|(_, c)| c.addr)
            .collect();
        if addrs.is_empty() {
            return;
        }
        let roster: Vec<RosterEntry> = self
            .slots
            .iter()
            .map(|s| RosterEntry {
                id: s.id,
                name: s.name.clone(),
                bot: matches!(s.controller, Controller::Bot(_)),
                ping_ms: match &s.controller {
                    Controller::Remote(c) => c.rtt_ms,
                    Controller::Bot(_) => 0,
                },
            })
            .collect();
        self.roster_serial = self.roster_serial.wrapping_add(1);
        let pages = roster_pages::split(self.roster_serial, &roster);
        for addr in addrs {
            for page in &pages {
                self.queue(addr, ServerMsg::Roster(page.clone()));
            }
        }
    }
}
