//! Where everything is drawn this frame: players (predicted, interpolated, ghosts),
//! projectiles, beams, the tell, correction flashes and facing arrows.

use std::time::Instant;

use super::super::netcode::combat::BEAM_SECS;
use super::super::netcode::session::{ClientSession, find};
use crate::net::protocol::RailShot;
use crate::sim::combat::{aim_of, aim_vector};
use crate::sim::map::CELL;
use crate::ui::{Beam, Sprite, SpriteKind};

/// How long the muzzle flash tell stays up.
const MUZZLE_SECS: f64 = 0.15;
/// How far back the ghost trail reaches: a few snapshots, not the whole buffer.
const TRAIL_SECS: f32 = 0.16;
/// How long a correction's two positions stay marked on screen.
const CORRECTION_FLASH_SECS: f64 = 0.5;

fn to_cells((x, y): (f64, f64)) -> (f64, f64) {
    (x / f64::from(CELL), y / f64::from(CELL))
}

fn sprite_at(id: u8, pos: (f64, f64), kind: SpriteKind) -> Sprite {
    let (x, y) = to_cells(pos);
    Sprite::new(id, x, y, kind)
}

/// Sprites in drawing order (later ones cover earlier ones), and the rail beams; with
/// `marks`, the lag compensation boxes of that rail shot.
pub(super) fn sprites_and_beams(
    s: &ClientSession,
    now: Instant,
    marks: Option<&RailShot>,
) -> (Vec<Sprite>, Vec<Beam>) {
    let mut sprites = Vec::new();
    snapshot_sprites(s, now, &mut sprites);
    let render_tick = s.render_tick(now);
    // Our own shots are drawn where we predicted them, in our own present, when we
    // predict; the server's copies of them are then not drawn again.
    let predicting = s.switches().prediction && s.predicted().is_some();
    let me = predicting.then_some(s.player_id());
    if let Some(t) = render_tick {
        for (owner, x, y) in s.combat().projectiles_at(t, me) {
            sprites.push(sprite_at(owner, (x, y), SpriteKind::Projectile));
        }
    }
    let mut beams = beams(s, render_tick, me);
    if predicting {
        own_beams(s, now, &mut beams);
    }
    if let Some(rail) = marks {
        lag_marks(rail, &mut sprites);
    }
    let local = local_position(s);
    flashes(s, now, local, &mut sprites);
    // Our bolt over our own muzzle flash: it must be seen leaving at once.
    if predicting {
        own_bolts(s, &mut sprites);
    }
    // Arrows go under everything else: one splice at the front, not an insert each.
    let arrows = facing_arrows(s, local, &sprites);
    sprites.splice(0..0, arrows);
    if let Some(pos) = local {
        sprites.push(sprite_at(s.player_id(), pos, SpriteKind::Local));
    }
    (sprites, beams)
}

/// The buffer's trail, the server's ghosts and the remote players.
fn snapshot_sprites(s: &ClientSession, now: Instant, sprites: &mut Vec<Sprite>) {
    let Some(latest) = s.latest() else {
        return;
    };
    let ghosts = s.switches().ghosts;
    let at = |x: i32, y: i32| (f64::from(x), f64::from(y));
    // The dead leave no ghost and no trail.
    let alive = |id| s.combat().status(id).is_none_or(|st| st.alive);
    if ghosts.trail() {
        let newest = latest.header.tick;
        for snap in s.buffered().filter(|b| b.tick < newest) {
            let age = (f64::from(newest - snap.tick) / s.tick_rate()) as f32;
            if age > TRAIL_SECS {
                continue;
            }
            for p in snap.players.iter().filter(|p| alive(p.id)) {
                let kind = SpriteKind::Trail { age_secs: age };
                sprites.push(sprite_at(p.id, at(p.state.x, p.state.y), kind));
            }
        }
    }
    if ghosts.server() {
        for p in latest.players.iter().filter(|p| alive(p.id)) {
            let kind = if p.id == s.player_id() {
                SpriteKind::LocalGhost
            } else {
                SpriteKind::Ghost
            };
            sprites.push(sprite_at(p.id, at(p.state.x, p.state.y), kind));
        }
    }
    for p in latest.players.iter().filter(|p| p.id != s.player_id()) {
        if let Some(pos) = s.remote_position(p.id, now) {
            sprites.push(sprite_at(p.id, pos, SpriteKind::Remote));
        }
    }
}

/// Rail beams on the same clock as the players they start from.
fn beams(s: &ClientSession, render_tick: Option<f64>, predicted_by: Option<u8>) -> Vec<Beam> {
    let mut beams = Vec::new();
    let own = |r: &RailShot| predicted_by == Some(r.shooter) && s.combat().is_own(r.id);
    for (_, rail) in s.combat().rails.iter().filter(|(_, r)| !own(r)) {
        // In snapshot time, at the render tick: the shot happened during tick T, so the
        // snapshot labelled T + 1 is the first to show it.
        let age = render_tick.map_or(0.0, |t| (t - f64::from(rail.tick + 1)) / s.tick_rate());
        beam(rail, age, &mut beams);
    }
    beams
}

/// One rail beam `age_secs` old.
fn beam(rail: &RailShot, age_secs: f64, beams: &mut Vec<Beam>) {
    if !(0.0..BEAM_SECS).contains(&age_secs) {
        return;
    }
    let point = |(x, y): (i32, i32)| to_cells((f64::from(x), f64::from(y)));
    beams.push(Beam {
        id: rail.shooter,
        from: point(rail.from),
        to: point(rail.to),
        fading: age_secs > BEAM_SECS / 2.0,
    });
}

/// The lag compensation overlay: the newest rail shot's victim where the server tested
/// it and where it really was, kept until the next shot.
fn lag_marks(rail: &RailShot, sprites: &mut Vec<Sprite>) {
    let id = rail.hit.unwrap_or(rail.shooter);
    for (p, kind) in [
        (rail.tested_at, SpriteKind::TestedBox),
        (rail.present_at, SpriteKind::PresentBox),
    ] {
        if let Some((x, y)) = p {
            sprites.push(sprite_at(id, (f64::from(x), f64::from(y)), kind));
        }
    }
}

/// Our own predicted blaster bolts, as far out as our own commands have flown them.
fn own_bolts(s: &ClientSession, sprites: &mut Vec<Sprite>) {
    let latest = s.latest_seq();
    for o in s.combat().own_shots() {
        if let Some((x, y)) = o.position(latest.saturating_sub(o.seq)) {
            let pos = (f64::from(x), f64::from(y));
            sprites.push(sprite_at(s.player_id(), pos, SpriteKind::Projectile));
        }
    }
}

/// Our own rail beams, from the moment we fired, as predicted and then as the server
/// traced them (it decides the hits).
fn own_beams(s: &ClientSession, now: Instant, beams: &mut Vec<Beam>) {
    for o in s.combat().own_shots() {
        if let Some(rail) = &o.rail {
            let age = now.saturating_duration_since(o.at).as_secs_f64();
            beam(rail, age, beams);
        }
    }
}

/// Where the local player is drawn, in sub-cell units: predicted, or (prediction off)
/// where the server last said; nowhere while dead.
fn local_position(s: &ClientSession) -> Option<(f64, f64)> {
    let alive = s.combat().status(s.player_id()).is_none_or(|st| st.alive);
    match (s.predicted_drawn(), s.switches().prediction) {
        _ if !alive => None,
        (Some(drawn), true) => Some(drawn),
        _ => s
            .server_state()
            .map(|st| (f64::from(st.x), f64::from(st.y))),
    }
}

/// A fresh correction's two positions, and the muzzle flash of the tell.
fn flashes(s: &ClientSession, now: Instant, local: Option<(f64, f64)>, out: &mut Vec<Sprite>) {
    let age = |at: Instant| now.saturating_duration_since(at).as_secs_f64();
    if let Some((at, c)) = s.last_correction()
        && age(*at) < CORRECTION_FLASH_SECS
    {
        for (state, kind) in [
            (c.predicted, SpriteKind::FlashPredicted),
            (c.corrected, SpriteKind::FlashCorrected),
        ] {
            let pos = (f64::from(state.x), f64::from(state.y));
            out.push(sprite_at(s.player_id(), pos, kind));
        }
    }
    if let (Some((at, aim)), Some(pos)) = (s.muzzle(), local)
        && age(at) < MUZZLE_SECS
    {
        let (dx, dy) = aim_vector(aim);
        let (x, y) = to_cells(pos);
        out.push(Sprite::new(
            s.player_id(),
            x + f64::from(dx) * 0.8,
            y + f64::from(dy) * 0.8,
            SpriteKind::Muzzle,
        ));
    }
}

/// Facing, beside each player: ours is the aim of our newest command; others' is where
/// they last moved.
fn facing_arrows(s: &ClientSession, local: Option<(f64, f64)>, sprites: &[Sprite]) -> Vec<Sprite> {
    let mut facing = Vec::new();
    if let (Some(pos), Some(cmd)) = (local, s.last_command()) {
        facing.push((s.player_id(), pos, cmd.aim));
    }
    for sprite in sprites.iter().filter(|sp| sp.kind == SpriteKind::Remote) {
        let moving = s
            .latest()
            .and_then(|l| find(&l.players, sprite.id))
            .and_then(|st| aim_of(st.vx, st.vy));
        if let Some(aim) = moving {
            let at = (sprite.x * f64::from(CELL), sprite.y * f64::from(CELL));
            facing.push((sprite.id, at, aim));
        }
    }
    facing
        .into_iter()
        .map(|(id, pos, aim)| {
            let (dx, dy) = aim_vector(aim);
            let (x, y) = to_cells(pos);
            Sprite::new(
                id,
                x + f64::from(dx) * 0.75,
                y + f64::from(dy) * 0.75,
                SpriteKind::Aim(aim),
            )
        })
        .collect()
}

/// Whether the picture may change with time alone: a remote player between snapshots
/// or still moving, the local player's smoothing, a bolt or beam, a flash.
pub(super) fn in_motion(s: &ClientSession, now: Instant) -> bool {
    let age = |at: Instant| now.saturating_duration_since(at).as_secs_f64();
    let fading = s.combat().rails.back().is_some()
        || !s.combat().flights().is_empty()
        || !s.combat().own_shots().is_empty()
        || s.muzzle().is_some_and(|(at, _)| age(at) < MUZZLE_SECS)
        || s.last_correction()
            .is_some_and(|(at, _)| age(*at) < CORRECTION_FLASH_SECS);
    let smoothing = match (s.predicted_drawn(), s.predicted()) {
        (Some(drawn), Some(st)) => drawn != (f64::from(st.x), f64::from(st.y)),
        _ => false,
    };
    let remotes = s.latest().is_some_and(|latest| {
        latest
            .players
            .iter()
            .filter(|p| p.id != s.player_id())
            .any(|p| {
                let newest = (f64::from(p.state.x), f64::from(p.state.y));
                p.state.vx != 0
                    || p.state.vy != 0
                    || s.remote_position(p.id, now).is_some_and(|at| at != newest)
            })
    });
    fading || smoothing || remotes
}
