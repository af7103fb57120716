//! The one place that turns messages into bytes and back. Every decode of network bytes
//! is size-checked first and then runs under a bincode limit, so a datagram can never
//! make us allocate more than it could honestly need.

use bincode::config::{Configuration, Limit, LittleEndian, Varint};
use serde::Serialize;

use super::protocol::{ClientMsg, Freshness, ServerMsg};
use super::secure::{CLIENT_SEAL_BYTES, OpenError, SERVER_SEAL_BYTES, Session};
use super::wire_fields::Malformed;
use super::{wire_input, wire_snapshot};

mod joining;
mod keylog;
pub use joining::{
    connect_request, connect_request_padded, decode_info, discover_request, peek_connect,
};
pub use keylog::KeyLog;

/// Largest client datagram we accept: connect requests and input packets are small.
pub const MAX_CLIENT_DATAGRAM: usize = 1200;
/// Largest server datagram: below any path's MTU, so nothing relies on IP fragmentation
/// (one lost fragment loses the datagram; some networks drop fragments outright). The
/// map travels in chunks, and events and rosters fill datagrams up to this budget.
pub const MAX_SERVER_DATAGRAM: usize = 1200;
/// Largest server message before sealing: what fits [`MAX_SERVER_DATAGRAM`] sealed.
pub const MAX_SERVER_MESSAGE: usize = MAX_SERVER_DATAGRAM - SERVER_SEAL_BYTES;
/// What decoding one server datagram may allocate: more than its bytes, since a one-byte
/// varint can become a four-byte integer in memory (64 players' states are ~1.3 KB).
const SERVER_DECODE_LIMIT: usize = 16 * 1024;

/// What decoding one client datagram may allocate: a connect request padded to the
/// full datagram counts its padding twice against the limit, read and held.
const CLIENT_DECODE_LIMIT: usize = 4 * MAX_CLIENT_DATAGRAM;

type Config<const N: usize> = Configuration<LittleEndian, Varint, Limit<N>>;

const fn config<const N: usize>() -> Config<N> {
    bincode::config::standard().with_limit::<N>()
}

#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    #[error("datagram of {0} bytes is over the limit")]
    TooLarge(usize),
    #[error("malformed datagram: {0}")]
    Malformed(#[from] bincode::error::DecodeError),
    #[error("{0} trailing bytes after the message")]
    Trailing(usize),
    #[error("cannot encode: {0}")]
    Encode(#[from] bincode::error::EncodeError),
    #[error("a sealed datagram holds something other than a session message")]
    NotSessional,
    #[error("a session message that is not sealed")]
    Unsealed,
    #[error("{0}")]
    Open(#[from] OpenError),
    #[error("the session has sent all the datagrams its counter can number")]
    Spent,
    #[error("malformed input packet: {0}")]
    Input(Malformed),
    #[error("malformed snapshot: {0}")]
    Snapshot(Malformed),
}

/// Encodes into `buf` (cleared first), reusing its allocation.
/// An input packet by its own writer (`net::wire_input`), anything else through serde.
pub fn encode_client(msg: &ClientMsg, buf: &mut Vec<u8>) -> Result<(), CodecError> {
    encode_client_within(msg, buf, MAX_CLIENT_DATAGRAM)
}

/// The kind byte of [`ClientMsg::Input`]: its variant's index, as serde writes it.
const INPUT_KIND: u8 = 1;

fn encode_client_within(
    msg: &ClientMsg,
    buf: &mut Vec<u8>,
    limit: usize,
) -> Result<(), CodecError> {
    let ClientMsg::Input(input) = msg else {
        encode_with(msg, buf, config::<MAX_CLIENT_DATAGRAM>())?;
        return match buf.len() {
            n if n > limit => Err(CodecError::TooLarge(n)),
            _ => Ok(()),
        };
    };
    buf.clear();
    buf.push(INPUT_KIND);
    wire_input::write(input, buf);
    if buf.len() > limit {
        return Err(CodecError::TooLarge(buf.len()));
    }
    Ok(())
}

/// The size of a client message before sealing.
pub fn encoded_len_client(msg: &ClientMsg) -> usize {
    match msg {
        ClientMsg::Input(input) => 1 + wire_input::len(input),
        other => encoded_len(other),
    }
}

/// Encodes a server message as it is before sealing (a session's messages may then take
/// at most [`MAX_SERVER_MESSAGE`] bytes).
///
/// A snapshot by its own writer (`net::wire_snapshot`), without a kind byte: its first
/// byte, its flags, has the top bit set, which no other message's kind has; anything
/// else through serde.
pub fn encode_server(msg: &ServerMsg, buf: &mut Vec<u8>) -> Result<(), CodecError> {
    let ServerMsg::Snapshot(d) = msg else {
        return encode_with(msg, buf, config::<MAX_SERVER_DATAGRAM>());
    };
    buf.clear();
    wire_snapshot::write(d, buf);
    if buf.len() > MAX_SERVER_DATAGRAM {
        return Err(CodecError::TooLarge(buf.len()));
    }
    Ok(())
}

fn encode_with<T: Serialize, const N: usize>(
    msg: &T,
    buf: &mut Vec<u8>,
    cfg: Config<N>,
) -> Result<(), CodecError> {
    buf.clear();
    bincode::serde::encode_into_std_write(msg, buf, cfg)?;
    if buf.len() > N {
        return Err(CodecError::TooLarge(buf.len()));
    }
    Ok(())
}

/// The size of a server message on the wire (sealed, if it is a session's), for byte
/// budgets and statistics.
pub fn encoded_len_server(msg: &ServerMsg) -> usize {
    let plain = match msg {
        ServerMsg::Snapshot(d) => wire_snapshot::len(d),
        other => encoded_len(other),
    };
    plain
        + if is_session_server_msg(msg) {
            SERVER_SEAL_BYTES
        } else {
            0
        }
}

/// The encoded size of any part of a message, for byte budgets and statistics (no
/// size limit: it measures what would not fit, too).
pub fn encoded_len<T: Serialize>(value: &T) -> usize {
    /// Counts in place: no shared count to allocate, as [`ByteCounter`] has.
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut sink = Count(0);
    match bincode::serde::encode_into_std_write(value, &mut sink, bincode::config::standard()) {
        Ok(n) => n,
        Err(_) => sink.0,
    }
}

/// A writer that counts bytes instead of storing them; clones share one count, so the
/// count can be read while something else owns the writer (a terminal backend, say).
#[derive(Clone, Debug, Default)]
pub struct ByteCounter(std::rc::Rc<std::cell::Cell<u64>>);

impl ByteCounter {
    pub fn bytes(&self) -> u64 {
        self.0.get()
    }
}

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.set(self.0.get() + buf.len() as u64);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether `msg` travels sealed: the messages of a session.
pub fn is_session_msg(msg: &ClientMsg) -> bool {
    matches!(
        msg,
        ClientMsg::Input(_) | ClientMsg::Chat(_) | ClientMsg::Leave
    )
}

/// Whether a server message belongs to a session, so travels only sealed: everything
/// but the answers to strangers (challenge, refusal, discovery, "not connected",
/// "left") and the handshake's own answer.
pub fn is_session_server_msg(msg: &ServerMsg) -> bool {
    matches!(
        msg,
        ServerMsg::Welcome(_)
            | ServerMsg::Snapshot(_)
            | ServerMsg::Roster(_)
            | ServerMsg::Bye(_)
            | ServerMsg::MapChunk(_)
    )
}

/// Whether a datagram is sealed: its first byte has the top bit set, which no plain
/// message's first byte (its variant) has.
pub fn is_sealed(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(|b| b & 0x80 != 0)
}

/// The session id a sealed client datagram names.
pub fn sealed_session(bytes: &[u8]) -> Option<u8> {
    bytes.first().filter(|b| *b & 0x80 != 0).map(|b| b & 0x7f)
}

/// The low 16 bits of a sealed client datagram's counter, as "not connected" echoes.
pub fn sealed_counter(bytes: &[u8]) -> [u8; 2] {
    match bytes {
        [_, lo, hi, ..] => [*lo, *hi],
        _ => [0; 2],
    }
}

/// Seals a session message (input, chat, leave) of session `id` into `buf`; returns
/// its counter. `scratch` holds the plain bytes.
pub fn seal_client(
    msg: &ClientMsg,
    session: &mut Session,
    id: u8,
    buf: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<u32, CodecError> {
    if !is_session_msg(msg) {
        return Err(CodecError::NotSessional);
    }
    encode_client_within(msg, scratch, MAX_CLIENT_DATAGRAM - CLIENT_SEAL_BYTES)?;
    session
        .seal_client(id, scratch, buf)
        .ok_or(CodecError::Spent)
}

/// The size of a session message on the wire, sealed.
pub fn sealed_client_len(msg: &ClientMsg) -> usize {
    encoded_len_client(msg) + CLIENT_SEAL_BYTES
}

/// Opens a sealed client datagram of `session`: an input packet, a chat line or a
/// leave, and nothing else; with whether its counter is the newest so far.
pub fn open_client(
    session: &mut Session,
    bytes: &[u8],
    scratch: &mut Vec<u8>,
) -> Result<(ClientMsg, Freshness), CodecError> {
    if bytes.len() > MAX_CLIENT_DATAGRAM {
        return Err(CodecError::TooLarge(bytes.len()));
    }
    let (_, freshness) = session.open_client(bytes, scratch)?;
    let msg = decode_client(scratch)?;
    if is_session_msg(&msg) {
        Ok((msg, freshness))
    } else {
        Err(CodecError::NotSessional)
    }
}

/// Encodes a server message for the wire: a session's sealed with `session`, any other
/// as it is.
pub fn seal_server(
    msg: &ServerMsg,
    session: Option<&mut Session>,
    buf: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<(), CodecError> {
    if !is_session_server_msg(msg) {
        return encode_server(msg, buf);
    }
    let session = session.ok_or(CodecError::Unsealed)?;
    encode_server(msg, scratch)?;
    if scratch.len() > MAX_SERVER_MESSAGE {
        return Err(CodecError::TooLarge(scratch.len()));
    }
    session.seal_server(scratch, buf).ok_or(CodecError::Spent)?;
    Ok(())
}

/// Decodes a server datagram as a client with `session` (None before the handshake)
/// takes it: a sealed one must open under the session's key and hold a session's
/// message; a plain one must not be a session's.
pub fn open_server(
    session: Option<&mut Session>,
    bytes: &[u8],
    scratch: &mut Vec<u8>,
) -> Result<ServerMsg, CodecError> {
    if !is_sealed(bytes) {
        let msg = decode_server(bytes)?;
        return if is_session_server_msg(&msg) {
            Err(CodecError::Unsealed)
        } else {
            Ok(msg)
        };
    }
    if bytes.len() > MAX_SERVER_DATAGRAM {
        return Err(CodecError::TooLarge(bytes.len()));
    }
    let session = session.ok_or(CodecError::Open(OpenError::Forged))?;
    session.open_server(bytes, scratch)?;
    let msg = decode_server(scratch)?;
    if is_session_server_msg(&msg) {
        Ok(msg)
    } else {
        Err(CodecError::NotSessional)
    }
}

pub fn decode_client(bytes: &[u8]) -> Result<ClientMsg, CodecError> {
    if let [INPUT_KIND, rest @ ..] = bytes {
        if bytes.len() > MAX_CLIENT_DATAGRAM {
            return Err(CodecError::TooLarge(bytes.len()));
        }
        return wire_input::read(rest)
            .map(ClientMsg::Input)
            .map_err(CodecError::Input);
    }
    decode_with(bytes, MAX_CLIENT_DATAGRAM, config::<CLIENT_DECODE_LIMIT>())
}

pub fn decode_server(bytes: &[u8]) -> Result<ServerMsg, CodecError> {
    if bytes
        .first()
        .is_some_and(|b| b & wire_snapshot::SNAPSHOT != 0)
    {
        if bytes.len() > MAX_SERVER_DATAGRAM {
            return Err(CodecError::TooLarge(bytes.len()));
        }
        return wire_snapshot::read(bytes)
            .map(ServerMsg::Snapshot)
            .map_err(CodecError::Snapshot);
    }
    decode_with(bytes, MAX_SERVER_DATAGRAM, config::<SERVER_DECODE_LIMIT>())
}

fn decode_with<T: serde::de::DeserializeOwned, const N: usize>(
    bytes: &[u8],
    max_len: usize,
    cfg: Config<N>,
) -> Result<T, CodecError> {
    if bytes.len() > max_len {
        return Err(CodecError::TooLarge(bytes.len()));
    }
    let (msg, used) = bincode::serde::decode_from_slice(bytes, cfg)?;
    if used != bytes.len() {
        return Err(CodecError::Trailing(bytes.len() - used));
    }
    Ok(msg)
}

/// The most a keyframe (a client loop's whole state in a recording, docs/RECORDING.md)
/// may be, encoded, and what decoding one may allocate: a 16-player match takes tens
/// of KiB (the prediction ring, the snapshot buffer, the map), so 4 MiB leaves room and
/// still bounds what a hostile file can make us take.
pub const MAX_KEYFRAME: usize = 4 << 20;

/// Encodes saved state (a keyframe) into `buf` (cleared first), at most
/// [`MAX_KEYFRAME`] bytes. Instants need `net::instants::with_base` around the call.
pub fn encode_state<T: Serialize>(state: &T, buf: &mut Vec<u8>) -> Result<(), CodecError> {
    encode_with(state, buf, config::<MAX_KEYFRAME>())
}

/// Decodes saved state under the [`MAX_KEYFRAME`] limit; trailing bytes are refused.
pub fn decode_state<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    decode_with(bytes, MAX_KEYFRAME, config::<MAX_KEYFRAME>())
}

/// A LEB128 varint, as the recording files frame their records and times.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A LEB128 varint at `*at` in `bytes`, moving `at` past it: None when cut short or
/// past 64 bits (ten bytes at most, the last holding one bit).
pub fn read_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..10 {
        let b = *bytes.get(*at)?;
        *at += 1;
        let part = u64::from(b & 0x7f);
        if i == 9 && part > 1 {
            return None;
        }
        v |= part << (7 * i);
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// A duration in whole nanoseconds, as the recording files write times.
pub fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seal costs 19 bytes up and 18 down whatever the message, and a session's
    /// messages pass only sealed, under their own session.
    #[test]
    fn seals_cost_nineteen_bytes_up_and_eighteen_down() {
        use crate::secure::{ClientHandshake, ServerKey, accept};
        let key = ServerKey::generate();
        let mut hs = ClientHandshake::new();
        let (answer, mut server) = accept(&key, &hs.hello(), 3).unwrap();
        let mut client = hs.finish(&answer).unwrap().session;
        let (mut bare, mut sealed, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        for msg in [ClientMsg::Leave, ClientMsg::Chat("hello".into())] {
            encode_client(&msg, &mut bare).unwrap();
            seal_client(&msg, &mut client, 3, &mut sealed, &mut scratch).unwrap();
            assert_eq!(sealed.len(), bare.len() + 19, "{msg:?}");
            assert_eq!(sealed_client_len(&msg), sealed.len());
            assert_eq!(sealed_session(&sealed), Some(3));
            assert_eq!(
                open_client(&mut server, &sealed, &mut scratch).unwrap().0,
                msg
            );
            assert!(decode_client(&sealed).is_err(), "no plain message");
        }
        let bye = ServerMsg::Bye("stopping".into());
        encode_server(&bye, &mut bare).unwrap();
        seal_server(&bye, Some(&mut server), &mut sealed, &mut scratch).unwrap();
        assert_eq!(sealed.len(), bare.len() + 18);
        assert_eq!(encoded_len_server(&bye), sealed.len());
        assert_eq!(
            open_server(Some(&mut client), &sealed, &mut scratch).unwrap(),
            bye
        );
        assert!(matches!(
            open_server(Some(&mut client), &bare, &mut scratch),
            Err(CodecError::Unsealed)
        ));
        // A client's own datagram does not open as the server's.
        seal_client(&ClientMsg::Leave, &mut client, 3, &mut sealed, &mut scratch).unwrap();
        assert!(open_server(Some(&mut client), &sealed, &mut scratch).is_err());
    }

    #[test]
    fn oversize_and_trailing_bytes_are_refused() {
        assert!(matches!(
            decode_client(&[0; MAX_CLIENT_DATAGRAM + 1]),
            Err(CodecError::TooLarge(_))
        ));
        let mut buf = Vec::new();
        encode_client(&ClientMsg::Leave, &mut buf).unwrap();
        buf.push(0);
        assert!(matches!(decode_client(&buf), Err(CodecError::Trailing(1))));
    }

    #[test]
    fn a_claimed_huge_length_does_not_allocate_it() {
        // Variant 0 (Connect), magic, version, then a string claiming ~4 GiB.
        let bytes = [
            0u8, 0xFC, 0x45, 0x52, 0x41, 0x4E, 1, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF,
        ];
        assert!(decode_client(&bytes).is_err());
    }
}
