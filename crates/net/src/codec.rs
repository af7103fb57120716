//! The one place that turns messages into bytes and back. Every decode of network bytes
//! is size-checked first and then runs under a bincode limit, so a datagram can never
//! make us allocate more than it could honestly need.

use bincode::config::{Configuration, Limit, LittleEndian, Varint};
use serde::Serialize;

use super::protocol::{
    ClientMsg, Cookie, MAGIC, MIN_CONNECT_BYTES, MIN_DISCOVER_BYTES, PROTOCOL_VERSION, Sealed,
    ServerMsg, SessionKey,
};

/// Largest client datagram we accept: connect requests and input packets are small.
pub const MAX_CLIENT_DATAGRAM: usize = 1200;
/// Largest server datagram: below any path's MTU, so nothing relies on IP fragmentation
/// (one lost fragment loses the datagram; some networks drop fragments outright). The
/// map travels in chunks, and events and rosters fill datagrams up to this budget.
pub const MAX_SERVER_DATAGRAM: usize = 1200;
/// What decoding one server datagram may allocate: more than its bytes, since a one-byte
/// varint can become a four-byte integer in memory (64 players' states are ~1.3 KB).
const SERVER_DECODE_LIMIT: usize = 16 * 1024;

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
}

/// Encodes into `buf` (cleared first), reusing its allocation.
pub fn encode_client(msg: &ClientMsg, buf: &mut Vec<u8>) -> Result<(), CodecError> {
    encode_with(msg, buf, config::<MAX_CLIENT_DATAGRAM>())
}

pub fn encode_server(msg: &ServerMsg, buf: &mut Vec<u8>) -> Result<(), CodecError> {
    encode_with(msg, buf, config::<MAX_SERVER_DATAGRAM>())
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

/// The encoded size of a server message, for statistics.
pub fn encoded_len_server(msg: &ServerMsg) -> usize {
    encoded_len(msg)
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

/// Reads just the start of a connect request, `(magic, version)`, which every protocol
/// version lays out the same way: so a request from another version, which may not
/// decode as ours, can still be told apart from noise and answered.
pub fn peek_connect(bytes: &[u8]) -> Option<(u32, u16)> {
    let cfg = config::<MAX_CLIENT_DATAGRAM>();
    let bytes = bytes.get(..bytes.len().min(MAX_CLIENT_DATAGRAM))?;
    match bincode::serde::decode_from_slice::<(u32, u32, u16), _>(bytes, cfg) {
        Ok(((0, magic, version), _)) => Some((magic, version)),
        _ => None,
    }
}

/// A connect request, padded so the server may answer it.
pub fn connect_request(
    name: &str,
    cookie: Option<Cookie>,
    session: SessionKey,
    buf: &mut Vec<u8>,
) -> Result<(), CodecError> {
    let mut msg = ClientMsg::Connect {
        magic: MAGIC,
        version: PROTOCOL_VERSION,
        name: name.to_owned(),
        cookie,
        session,
        padding: Vec::new(),
    };
    encode_client(&msg, buf)?;
    if let ClientMsg::Connect { padding, .. } = &mut msg {
        // The padding's own length prefix is a byte while it stays under 251.
        padding.resize(MIN_CONNECT_BYTES.saturating_sub(buf.len()), 0);
    }
    encode_client(&msg, buf)
}

/// Whether `msg` travels sealed: the messages of a session.
pub fn is_session_msg(msg: &ClientMsg) -> bool {
    matches!(
        msg,
        ClientMsg::Input(_) | ClientMsg::Chat(_) | ClientMsg::Leave
    )
}

/// Encodes a session message sealed with `session` and counter `seq` (see
/// [`Sealed`]); any other message as it is.
pub fn encode_sealed(
    msg: &ClientMsg,
    session: &SessionKey,
    seq: u32,
    buf: &mut Vec<u8>,
) -> Result<(), CodecError> {
    encode_client(msg, buf)?;
    if !is_session_msg(msg) {
        return Ok(());
    }
    let sealed = ClientMsg::Sealed(session.seal(seq, std::mem::take(buf)));
    encode_client(&sealed, buf)
}

/// The message inside a sealed datagram whose tag has been checked: an input packet, a
/// chat line or a leave, and nothing else.
pub fn open_sealed(sealed: &Sealed) -> Result<ClientMsg, CodecError> {
    let msg = decode_client(&sealed.body)?;
    if is_session_msg(&msg) {
        Ok(msg)
    } else {
        Err(CodecError::NotSessional)
    }
}

/// The session of a client that lives in the same process as its server (tests, the
/// lab, benchmarks), fixed by its address: the server's `Server::join_in_process`
/// (netarena-server) joins with it.
pub fn in_process_session(addr: std::net::SocketAddr) -> SessionKey {
    SessionKey::derived(addr.to_string().as_bytes())
}

/// Encodes `msg` as the in-process client at `addr` sends it: sealed with
/// [`in_process_session`] and a counter shared by the whole process, so it only grows.
pub fn encode_in_process(
    addr: std::net::SocketAddr,
    msg: &ClientMsg,
    buf: &mut Vec<u8>,
) -> Result<(), CodecError> {
    static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    encode_sealed(msg, &in_process_session(addr), seq, buf)
}

/// A discovery request, padded so a server may answer it.
pub fn discover_request(nonce: u32, buf: &mut Vec<u8>) -> Result<(), CodecError> {
    let mut msg = ClientMsg::Discover {
        magic: MAGIC,
        version: PROTOCOL_VERSION,
        nonce,
        padding: Vec::new(),
    };
    encode_client(&msg, buf)?;
    if let ClientMsg::Discover { padding, .. } = &mut msg {
        padding.resize(MIN_DISCOVER_BYTES.saturating_sub(buf.len()), 0);
    }
    encode_client(&msg, buf)
}

pub fn decode_client(bytes: &[u8]) -> Result<ClientMsg, CodecError> {
    decode_with(bytes, MAX_CLIENT_DATAGRAM, config::<MAX_CLIENT_DATAGRAM>())
}

pub fn decode_server(bytes: &[u8]) -> Result<ServerMsg, CodecError> {
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

    #[test]
    fn connect_requests_are_padded_and_peekable() {
        let mut buf = Vec::new();
        connect_request("ann", None, SessionKey::random(), &mut buf).unwrap();
        assert!(buf.len() >= MIN_CONNECT_BYTES && buf.len() < MIN_CONNECT_BYTES + 4);
        assert!(matches!(
            decode_client(&buf).unwrap(),
            ClientMsg::Connect { .. }
        ));
        assert_eq!(peek_connect(&buf), Some((MAGIC, PROTOCOL_VERSION)));
        // A future version's request with a different tail still peeks.
        let future = [0u8, 0xFC, 0x45, 0x52, 0x41, 0x4E, 9, 0xFF, 0xFF];
        assert_eq!(peek_connect(&future), Some((MAGIC, 9)));
        assert_eq!(peek_connect(&[2, 0, 0]), None);
    }

    /// A seal costs 18 bytes whatever the message: variant, session id and counter
    /// (four bytes each, fixed), the body's length and the 8-byte tag.
    #[test]
    fn a_seal_costs_eighteen_bytes() {
        let session = SessionKey::random();
        for msg in [ClientMsg::Leave, ClientMsg::Chat("hello".into())] {
            let (mut bare, mut sealed) = (Vec::new(), Vec::new());
            encode_client(&msg, &mut bare).unwrap();
            encode_sealed(&msg, &session, u32::MAX, &mut sealed).unwrap();
            assert_eq!(sealed.len(), bare.len() + 18, "{msg:?}");
            let ClientMsg::Sealed(s) = decode_client(&sealed).unwrap() else {
                panic!("not sealed");
            };
            assert!(session.verify(&s));
            assert_eq!(open_sealed(&s).unwrap(), msg);
        }
        // A sealed datagram never holds another sealed one, or a connect.
        let mut inner = Vec::new();
        connect_request("ann", None, session, &mut inner).unwrap();
        assert!(matches!(
            open_sealed(&session.seal(1, inner)),
            Err(CodecError::NotSessional)
        ));
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
