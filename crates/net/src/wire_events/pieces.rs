//! The pieces of event items: points, statuses, rails and map descriptions, each
//! written and read the same way wherever it appears.

use super::super::protocol::{MapInfo, PlayerStatus, RailShot, RailVerdict};
use super::super::wire_fields::{Malformed, Reader, put_signed, put_unsigned};
use netarena_sim::combat::Weapon;
use netarena_sim::world::PlayerId;

/// A point with both axes in 0..=65535, as every point inside an arena is: two
/// little-endian bytes an axis (a LEB128 of its zigzag would take three).
pub(super) fn near((x, y): (i32, i32)) -> Option<[u8; 4]> {
    let (x, y) = (u16::try_from(x).ok()?, u16::try_from(y).ok()?);
    let (x, y) = (x.to_le_bytes(), y.to_le_bytes());
    Some([x[0], x[1], y[0], y[1]])
}

pub(super) fn put_near(out: &mut Vec<u8>, p: (i32, i32)) {
    // Only called on points `near` accepted.
    out.extend_from_slice(&near(p).unwrap_or_default());
}

pub(super) fn read_near(r: &mut Reader) -> Result<(i32, i32), Malformed> {
    let p: [u8; 4] = r.array("point")?;
    Ok((
        i32::from(u16::from_le_bytes([p[0], p[1]])),
        i32::from(u16::from_le_bytes([p[2], p[3]])),
    ))
}

pub(super) fn put_far(out: &mut Vec<u8>, (x, y): (i32, i32)) {
    put_signed(out, x);
    put_signed(out, y);
}

pub(super) fn read_far(r: &mut Reader) -> Result<(i32, i32), Malformed> {
    Ok((r.signed("point")?, r.signed("point")?))
}

pub(super) fn put_option<T: Copy>(
    out: &mut Vec<u8>,
    v: Option<T>,
    put: impl FnOnce(&mut Vec<u8>, T),
) {
    match v {
        None => out.push(0),
        Some(v) => {
            out.push(1);
            put(out, v);
        }
    }
}

/// A status's flags: `alive` (bit 0), the weapon's index (bit 1) and `protected`
/// (bit 2), in its kind byte (in a byte of their own in a match's standings).
const ALIVE: u8 = 1;
const WEAPON_SHIFT: u8 = 1;
const _: () = assert!(Weapon::INDEX_BITS == 1);
const PROTECTED: u8 = 4;

pub(super) fn status_flags(s: &PlayerStatus) -> u8 {
    let mut bits = s.weapon.index() << WEAPON_SHIFT;
    if s.alive {
        bits |= ALIVE;
    }
    if s.protected {
        bits |= PROTECTED;
    }
    bits
}

/// A status's numbers: health and frags as u16 (a byte each while under 128), deaths.
pub(super) fn put_status(out: &mut Vec<u8>, s: &PlayerStatus) {
    out.push(s.id);
    put_unsigned(out, s.health as u16);
    put_unsigned(out, s.frags as u16);
    put_unsigned(out, s.deaths);
}

/// What [`put_status`] wrote, with the flags `bits`.
pub(super) fn read_status(r: &mut Reader, bits: u8) -> Result<PlayerStatus, Malformed> {
    Ok(PlayerStatus {
        id: r.u8("status")?,
        health: r.u16_number("health")? as i16,
        frags: r.u16_number("frags")? as i16,
        deaths: r.u16_number("deaths")?,
        alive: bits & ALIVE != 0,
        weapon: Weapon::from_index(bits >> WEAPON_SHIFT & 1),
        protected: bits & PROTECTED != 0,
    })
}

/// A rail after its id and tick: its points by `point`, the rest as they are.
pub(super) fn put_rail(out: &mut Vec<u8>, r: &RailShot, point: fn(&mut Vec<u8>, (i32, i32))) {
    point(out, r.from);
    point(out, r.to);
    put_option(out, r.hit, |out, id| out.push(id));
    put_unsigned(out, r.rewound_ticks);
    put_option(out, r.tested_at, point);
    put_option(out, r.present_at, point);
    put_unsigned(out, r.wanted_ticks);
    put_unsigned(out, r.bound_ticks);
    put_option(out, r.nearest, |out, (id, tested, present)| {
        out.push(id);
        point(out, tested);
        point(out, present);
    });
    out.push(match r.verdict {
        RailVerdict::Hit => 0,
        RailVerdict::Miss => 1,
        RailVerdict::PastBound => 2,
    });
}

/// What [`put_rail`] wrote, for a rail of `id`, `shooter` and `tick`.
pub(super) fn read_rail(
    r: &mut Reader,
    (id, shooter, tick): (u16, PlayerId, u32),
    point: fn(&mut Reader) -> Result<(i32, i32), Malformed>,
) -> Result<RailShot, Malformed> {
    Ok(RailShot {
        id,
        shooter,
        tick,
        from: point(r)?,
        to: point(r)?,
        hit: r.option("rail hit", |r| r.u8("rail hit"))?,
        rewound_ticks: r.u16_number("rewind")?,
        tested_at: r.option("rail point", point)?,
        present_at: r.option("rail point", point)?,
        wanted_ticks: r.u16_number("rewind")?,
        bound_ticks: r.u16_number("rewind")?,
        nearest: r.option("near miss", |r| {
            Ok((r.u8("near miss")?, point(r)?, point(r)?))
        })?,
        verdict: match r.u8("verdict")? {
            0 => RailVerdict::Hit,
            1 => RailVerdict::Miss,
            2 => RailVerdict::PastBound,
            _ => return Err(Malformed("verdict")),
        },
    })
}

pub(super) fn put_map_info(out: &mut Vec<u8>, m: &MapInfo) {
    // A checksum: four bytes, where LEB128 would mostly take five.
    out.extend_from_slice(&m.id.to_le_bytes());
    put_unsigned(out, m.len);
    put_unsigned(out, m.chunks);
}

pub(super) fn read_map_info(r: &mut Reader) -> Result<MapInfo, Malformed> {
    Ok(MapInfo {
        id: u32::from_le_bytes(r.array("map")?),
        len: r.u32_number("map")?,
        chunks: r.u16_number("map")?,
    })
}
