//! Sessions no one else can read or forge: a Noise handshake at join and
//! ChaCha20-Poly1305 on every session datagram, both ways.
//!
//! (The unsealed "not connected" can end one only when nothing sealed has reached the
//! client for a second: see `docs/SECURITY.md`.)
//!
//! The handshake is `Noise_NX_25519_ChaChaPoly_BLAKE2s` (the `snow` crate; nothing here
//! is cryptography of its own). The client sends an ephemeral X25519 key (`-> e`) in
//! its connect request; the server answers with its own ephemeral key and its
//! long-lived static key, encrypted and proved by the `es` exchange (`<- e, ee, s, es`).
//! Only the holder of the static key's private half can make that answer, and only the
//! holder of the client's ephemeral private key can read it, so a listener who
//! captured the request learns nothing it can use. The client compares the static key
//! with the one it pinned for the server (`client::known_servers`) before it sends
//! anything of the session. The prologue binds the protocol version.
//!
//! After the handshake each datagram is `header | ciphertext | 16-byte tag`, sealed
//! with the session's key for its direction and a nonce that is the datagram's counter
//! (Noise's stateless transport, so loss and reordering are no problem). The header
//! carries only the counter's low bits, which the receiver widens against the newest
//! it has taken ([`widen`]); a wrong guess only fails to open. Each counter is taken
//! once ([`ReplayWindow`]): 19 bytes a datagram upward (`0x80 | session id`, 16 counter
//! bits, the tag), 18 downward (a marker bit and 15 counter bits, the tag).

use snow::{HandshakeState, StatelessTransportState};

use super::protocol::PROTOCOL_VERSION;

/// The Noise pattern and primitives.
pub const NOISE: &str = "Noise_NX_25519_ChaChaPoly_BLAKE2s";
/// Bytes of the AEAD tag on every sealed datagram.
pub const TAG_BYTES: usize = 16;
/// A sealed client datagram's header: `0x80 | session id`, then the counter's low 16 bits.
pub const CLIENT_HEADER: usize = 3;
/// A sealed server datagram's header: `0x80 | counter bits 8..15`, counter bits 0..8.
pub const SERVER_HEADER: usize = 2;
/// What sealing adds to a client message, and to a server message.
pub const CLIENT_SEAL_BYTES: usize = CLIENT_HEADER + TAG_BYTES;
pub const SERVER_SEAL_BYTES: usize = SERVER_HEADER + TAG_BYTES;
/// The first message of the handshake (`-> e`): the client's ephemeral public key.
pub const HELLO_BYTES: usize = 32;
/// Counters remembered as seen behind the newest, so a late datagram is taken once.
pub const REPLAY_WINDOW: u32 = 64;
/// Counter bits on the wire, each way.
const CLIENT_COUNTER_BITS: u32 = 16;
const SERVER_COUNTER_BITS: u32 = 15;

fn params() -> snow::params::NoiseParams {
    NOISE.parse().expect("a pattern snow knows")
}

fn prologue() -> Vec<u8> {
    format!("netarena v{PROTOCOL_VERSION}").into_bytes()
}

/// A server's long-lived X25519 key. Its `Debug` shows only the fingerprint.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerKey {
    private: [u8; 32],
    public: [u8; 32],
}

impl std::fmt::Debug for ServerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ServerKey({})", fingerprint(&self.public))
    }
}

impl ServerKey {
    /// A fresh key from the operating system's generator.
    pub fn generate() -> ServerKey {
        let pair = snow::Builder::new(params())
            .generate_keypair()
            .expect("the default resolver makes X25519 keys");
        let mut key = ServerKey {
            private: [0; 32],
            public: [0; 32],
        };
        key.private.copy_from_slice(&pair.private);
        key.public.copy_from_slice(&pair.public);
        key
    }

    pub fn public(&self) -> [u8; 32] {
        self.public
    }

    /// The key as a file keeps it: the private half in hex, one line.
    pub fn to_file_text(&self) -> String {
        format!("{}\n", hex(&self.private))
    }

    /// Reads [`ServerKey::to_file_text`]; the public half is worked out again.
    pub fn from_file_text(text: &str) -> Result<ServerKey, String> {
        let private = parse_key(text.trim())
            .ok_or_else(|| "not a server key (64 hex digits expected)".to_owned())?;
        let public = public_of(&private).map_err(|e| e.to_string())?;
        Ok(ServerKey { private, public })
    }
}

/// The public key of an X25519 private key (snow's own X25519).
fn public_of(private: &[u8; 32]) -> Result<[u8; 32], snow::Error> {
    use snow::resolvers::{CryptoResolver, DefaultResolver};
    let mut dh = DefaultResolver
        .resolve_dh(&snow::params::DHChoice::Curve25519)
        .ok_or(snow::Error::Input)?;
    dh.set(private);
    let mut public = [0; 32];
    public.copy_from_slice(dh.pubkey());
    Ok(public)
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A 32-byte key from 64 hex digits.
pub fn parse_key(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut key = [0; 32];
    for (i, b) in key.iter_mut().enumerate() {
        *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(key)
}

/// What the server browser and the pinning messages show of a server's key: its first
/// eight bytes in hex, in four groups (`3f9a-1c07-88e2-05bd`). Pinning compares the
/// whole key; this only names it.
pub fn fingerprint(public: &[u8; 32]) -> String {
    short_fingerprint(&first8(public))
}

/// The eight bytes of a key a discovery answer carries.
pub fn first8(public: &[u8; 32]) -> [u8; 8] {
    let mut out = [0; 8];
    out.copy_from_slice(&public[..8]);
    out
}

/// [`fingerprint`] from the eight bytes a discovery answer carries.
pub fn short_fingerprint(first8: &[u8; 8]) -> String {
    let h = hex(first8);
    format!("{}-{}-{}-{}", &h[..4], &h[4..8], &h[8..12], &h[12..])
}

/// Why a handshake message was refused.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error("handshake message refused: {0}")]
    Noise(#[from] snow::Error),
    #[error("handshake answer without a session id")]
    NoSession,
}

/// The client's side of a handshake in progress: the hello it sends (the same in every
/// repeat of its connect request) and what it needs to read the answer.
pub struct ClientHandshake {
    state: HandshakeState,
    hello: [u8; HELLO_BYTES],
    /// Hand the session's keys out for a key log (tests only, see [`Accepted::keys`]).
    log_keys: bool,
}

impl std::fmt::Debug for ClientHandshake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientHandshake { .. }")
    }
}

/// A finished handshake, from the client's side.
#[derive(Debug)]
pub struct Accepted {
    pub session: Session,
    /// The session id the server gave (the client's player id).
    pub id: u8,
    /// The server's static key, to compare with the pinned one.
    pub server_key: [u8; 32],
    /// The session's two keys (client to server, server to client), only when the
    /// handshake was asked to log them ([`ClientHandshake::log_keys`]).
    pub keys: Option<([u8; 32], [u8; 32])>,
}

impl ClientHandshake {
    /// A fresh ephemeral key from the operating system's generator.
    pub fn new() -> ClientHandshake {
        let prologue = prologue();
        let mut state = snow::Builder::new(params())
            .prologue(&prologue)
            .and_then(|b| b.build_initiator())
            .expect("an NX initiator needs nothing but the pattern");
        let mut message = [0; 2 * HELLO_BYTES];
        let n = state.write_message(&[], &mut message).expect("`-> e` fits");
        let mut hello = [0; HELLO_BYTES];
        hello.copy_from_slice(&message[..n.min(HELLO_BYTES)]);
        ClientHandshake {
            state,
            hello,
            log_keys: false,
        }
    }

    /// Asks for the session's keys in [`Accepted::keys`]: for a key log that lets a
    /// test's relay read the traffic (`NETARENA_KEYLOG`, as `SSLKEYLOGFILE` does for
    /// TLS), never otherwise.
    pub fn log_keys(&mut self) {
        self.log_keys = true;
    }

    pub fn hello(&self) -> [u8; HELLO_BYTES] {
        self.hello
    }

    /// Reads the server's answer. On an error (a corrupted or forged answer) the
    /// handshake is as before and a later, genuine answer still reads.
    pub fn finish(&mut self, answer: &[u8]) -> Result<Accepted, HandshakeError> {
        let mut payload = [0u8; 64];
        let n = self.state.read_message(answer, &mut payload)?;
        let &[id] = &payload[..n] else {
            return Err(HandshakeError::NoSession);
        };
        let mut server_key = [0; 32];
        server_key.copy_from_slice(
            self.state
                .get_remote_static()
                .ok_or(HandshakeError::NoSession)?,
        );
        let keys = self
            .log_keys
            .then(|| self.state.dangerously_get_raw_split());
        let replaced = std::mem::replace(&mut self.state, ClientHandshake::new().state);
        Ok(Accepted {
            session: Session::new(replaced.into_stateless_transport_mode()?),
            id,
            server_key,
            keys,
        })
    }
}

impl Default for ClientHandshake {
    fn default() -> Self {
        ClientHandshake::new()
    }
}

/// The server's side: reads a client's hello and answers it with session id `id`.
/// Returns the answer (`<- e, ee, s, es` and the id, 97 bytes) and the session.
pub fn accept(key: &ServerKey, hello: &[u8], id: u8) -> Result<(Vec<u8>, Session), HandshakeError> {
    let prologue = prologue();
    let mut state = snow::Builder::new(params())
        .prologue(&prologue)?
        .local_private_key(&key.private)?
        .build_responder()?;
    let mut payload = [0u8; 64];
    if hello.len() != HELLO_BYTES {
        return Err(snow::Error::Input.into());
    }
    state.read_message(hello, &mut payload)?;
    let mut answer = vec![0u8; 128];
    let n = state.write_message(&[id], &mut answer)?;
    answer.truncate(n);
    Ok((answer, Session::new(state.into_stateless_transport_mode()?)))
}

/// One end of a session: its keys, the next counter it sends and the counters it has
/// taken. Its `Debug` shows no key.
pub struct Session {
    transport: StatelessTransportState,
    next_send: u32,
    replay: ReplayWindow,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Session {{ next_send: {}, replay: {:?}, keys: .. }}",
            self.next_send, self.replay
        )
    }
}

/// Why a sealed datagram was not opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("sealed datagram too short")]
    Short,
    #[error("sealed datagram does not open under the session's key")]
    Forged,
    #[error("sealed datagram's counter was taken already")]
    Replayed,
}

impl Session {
    /// Both ends of a session from its logged keys ([`Accepted::keys`]): the client's
    /// (to open what the server sent) and the server's (to open what the client sent).
    /// For a test's relay reading a key log.
    pub fn from_logged_keys(up: &[u8; 32], down: &[u8; 32]) -> (Session, Session) {
        let key = ServerKey::generate();
        let mut client = ClientHandshake::new();
        let (answer, mut server) = accept(&key, &client.hello(), 0).expect("a fresh handshake");
        let mut client = client.finish(&answer).expect("a fresh handshake").session;
        for end in [&mut client, &mut server] {
            end.transport.rekey_manually(Some(up), Some(down));
        }
        (client, server)
    }

    fn new(transport: StatelessTransportState) -> Session {
        Session {
            transport,
            next_send: 1,
            replay: ReplayWindow::default(),
        }
    }

    /// The counter of the next datagram this end sends (from 1).
    pub fn next_counter(&self) -> u32 {
        self.next_send
    }

    /// Makes `counter` the next one this end sends: for a key log's copy of an end,
    /// which must not reuse a counter the real end has used (`codec::KeyLog`).
    pub(crate) fn send_from(&mut self, counter: u32) {
        self.next_send = counter;
    }

    /// None once the counters are spent: the last, `u32::MAX`, is never used, so no
    /// nonce is used twice under the key (the session must end; at 60 datagrams a
    /// second that is over two years away).
    fn seal_with(&mut self, header: &[u8], plain: &[u8], out: &mut Vec<u8>) -> Option<u32> {
        let counter = self.next_send;
        self.next_send = self.next_send.checked_add(1)?;
        out.clear();
        out.extend_from_slice(header);
        out.resize(header.len() + plain.len() + TAG_BYTES, 0);
        // Fails only for a message over Noise's 65,535 bytes, which no datagram is.
        let _ = self
            .transport
            .write_message(u64::from(counter), plain, &mut out[header.len()..]);
        Some(counter)
    }

    /// Seals a client message's bytes as session `id`'s next datagram into `out`;
    /// returns its counter, or None once the session's counters are spent.
    pub fn seal_client(&mut self, id: u8, plain: &[u8], out: &mut Vec<u8>) -> Option<u32> {
        let c = self.next_send;
        let header = [0x80 | (id & 0x7f), c as u8, (c >> 8) as u8];
        self.seal_with(&header, plain, out)
    }

    /// Seals a server message's bytes as the session's next datagram into `out`; None
    /// once the session's counters are spent.
    pub fn seal_server(&mut self, plain: &[u8], out: &mut Vec<u8>) -> Option<u32> {
        let c = self.next_send;
        let header = [0x80 | ((c >> 8) as u8 & 0x7f), c as u8];
        self.seal_with(&header, plain, out)
    }

    /// Opens a sealed client datagram (header included) into `plain`: its counter and
    /// whether it is the newest so far. The counter is taken only when it opens.
    pub fn open_client(
        &mut self,
        datagram: &[u8],
        plain: &mut Vec<u8>,
    ) -> Result<(u32, Freshness), OpenError> {
        let &[_, lo, hi, ..] = datagram else {
            return Err(OpenError::Short);
        };
        let low = u32::from(lo) | u32::from(hi) << 8;
        self.open_with(datagram, CLIENT_HEADER, low, CLIENT_COUNTER_BITS, plain)
    }

    /// Opens a sealed server datagram into `plain`.
    pub fn open_server(
        &mut self,
        datagram: &[u8],
        plain: &mut Vec<u8>,
    ) -> Result<(u32, Freshness), OpenError> {
        let &[hi, lo, ..] = datagram else {
            return Err(OpenError::Short);
        };
        let low = u32::from(hi & 0x7f) << 8 | u32::from(lo);
        self.open_with(datagram, SERVER_HEADER, low, SERVER_COUNTER_BITS, plain)
    }

    fn open_with(
        &mut self,
        datagram: &[u8],
        header: usize,
        low: u32,
        bits: u32,
        plain: &mut Vec<u8>,
    ) -> Result<(u32, Freshness), OpenError> {
        let sealed = datagram.get(header..).ok_or(OpenError::Short)?;
        if sealed.len() < TAG_BYTES {
            return Err(OpenError::Short);
        }
        let counter = widen(self.replay.high, low, bits);
        plain.clear();
        plain.resize(sealed.len() - TAG_BYTES, 0);
        // Opened first, so a forgery is told apart from a replay (an operator is shown
        // forgeries; replays are what networks make too).
        match self
            .transport
            .read_message(u64::from(counter), sealed, plain)
        {
            Ok(n) => {
                plain.truncate(n);
                let freshness = self.replay.check(counter);
                if freshness == Freshness::Replayed {
                    plain.clear();
                    return Err(OpenError::Replayed);
                }
                self.replay.take(counter);
                Ok((counter, freshness))
            }
            Err(_) => {
                plain.clear();
                Err(OpenError::Forged)
            }
        }
    }
}

/// The counter whose low `bits` are `low` and which lies nearest to `high + 1`, the
/// next one expected (at most half the range behind or ahead of it); 0 where that would
/// go below 1, which the replay window refuses.
pub fn widen(high: u32, low: u32, bits: u32) -> u32 {
    let range = 1i64 << bits;
    let mask = range - 1;
    let expected = i64::from(high) + 1;
    let mut candidate = (expected & !mask) | (i64::from(low) & mask);
    if candidate - expected > range / 2 {
        candidate -= range;
    } else if expected - candidate > range / 2 {
        candidate += range;
    }
    u32::try_from(candidate).unwrap_or(0)
}

/// The counters a session has taken: each is taken once, and one further behind the
/// newest than [`REPLAY_WINDOW`] is refused, so a recorded datagram can never be played
/// back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayWindow {
    high: u32,
    /// Bit k set: counter `high - k` has been taken.
    seen: u64,
}

/// What a counter is to a [`ReplayWindow`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Newer than any so far.
    Newest,
    /// Older, but within the window and not seen yet (reordered).
    Late,
    /// Seen already, or too old to tell.
    Replayed,
}

impl ReplayWindow {
    pub fn check(&self, seq: u32) -> Freshness {
        if seq > self.high {
            return Freshness::Newest;
        }
        let age = self.high - seq;
        if seq == 0 || age >= REPLAY_WINDOW || self.seen & (1 << age) != 0 {
            Freshness::Replayed
        } else {
            Freshness::Late
        }
    }

    /// Marks `seq` as taken; call only after [`ReplayWindow::check`] said it is fresh.
    pub fn take(&mut self, seq: u32) {
        if seq > self.high {
            let shift = seq - self.high;
            self.seen = if shift >= REPLAY_WINDOW {
                0
            } else {
                self.seen << shift
            };
            self.seen |= 1;
            self.high = seq;
        } else {
            let age = self.high - seq;
            if age < REPLAY_WINDOW {
                self.seen |= 1 << age;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (Session, Session, ServerKey) {
        let key = ServerKey::generate();
        let mut client = ClientHandshake::new();
        let (answer, server) = accept(&key, &client.hello(), 5).unwrap();
        assert_eq!(answer.len(), 97);
        let accepted = client.finish(&answer).unwrap();
        assert_eq!(accepted.id, 5);
        assert_eq!(accepted.server_key, key.public());
        (accepted.session, server, key)
    }

    #[test]
    fn sealed_datagrams_open_once_each_way_in_any_order() {
        let (mut client, mut server, _) = pair();
        let mut sealed = Vec::new();
        let mut plain = Vec::new();
        let datagrams: Vec<Vec<u8>> = (0..5)
            .map(|i| {
                client.seal_client(5, &[i; 7], &mut sealed);
                sealed.clone()
            })
            .collect();
        assert_eq!(datagrams[0].len(), 7 + CLIENT_SEAL_BYTES);
        assert_eq!(datagrams[0][0], 0x85);
        for i in [2, 0, 4, 1, 3] {
            let (counter, _) = server.open_client(&datagrams[i], &mut plain).unwrap();
            assert_eq!((counter, &plain[..]), (i as u32 + 1, &[i as u8; 7][..]));
            assert_eq!(
                server.open_client(&datagrams[i], &mut plain),
                Err(OpenError::Replayed)
            );
        }
        server.seal_server(b"bye", &mut sealed);
        assert_eq!(sealed.len(), 3 + SERVER_SEAL_BYTES);
        assert!(sealed[0] & 0x80 != 0);
        assert_eq!(client.open_server(&sealed, &mut plain).unwrap().0, 1);
        assert_eq!(plain, b"bye");
    }

    /// Every bit is bound but two, each named: a client datagram's first byte (the
    /// sealed flag and the session id) only picks the session whose keys open it, and
    /// another session's do not (`stranger`, below); a server datagram's top bit is
    /// the sealed flag, which `codec` reads before any key.
    #[test]
    fn a_changed_bit_anywhere_and_another_session_do_not_open() {
        let (mut client, mut server, _) = pair();
        let (_, mut stranger, _) = pair();
        let mut sealed = Vec::new();
        let mut plain = Vec::new();
        client.seal_client(5, b"input", &mut sealed);
        for bit in 8..sealed.len() * 8 {
            let mut bad = sealed.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(server.open_client(&bad, &mut plain).is_err(), "bit {bit}");
        }
        let mut down = Vec::new();
        server.seal_server(b"snapshot", &mut down);
        for bit in (0..down.len() * 8).filter(|&b| b != 7) {
            let mut bad = down.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(client.open_server(&bad, &mut plain).is_err(), "bit {bit}");
        }
        assert!(client.open_server(&down, &mut plain).is_ok());
        assert_eq!(
            stranger.open_client(&sealed, &mut plain),
            Err(OpenError::Forged)
        );
        assert_eq!(
            server.open_client(&sealed[..10], &mut plain),
            Err(OpenError::Short)
        );
        assert!(server.open_client(&sealed, &mut plain).is_ok());
        // The server's own datagrams do not open as the client's, nor the reverse.
        server.seal_server(b"snapshot", &mut sealed);
        let mut as_client = sealed.clone();
        as_client.insert(0, 0x85);
        assert!(server.open_client(&as_client, &mut plain).is_err());
    }

    #[test]
    fn counters_widen_across_the_wrap_of_their_low_bits() {
        assert_eq!(widen(0, 1, 16), 1);
        assert_eq!(widen(65_535, 0, 16), 65_536);
        assert_eq!(widen(65_540, 65_535, 16), 65_535);
        assert_eq!(widen(100_000, 100_000 & 0x7fff, 15), 100_000);
        assert_eq!(widen(5, 65_535, 16), 0, "before the first counter");
        let (mut client, mut server, _) = pair();
        let mut sealed = Vec::new();
        let mut plain = Vec::new();
        // 70,000 datagrams, of which the server sees every 1,000th: the low bits wrap.
        for i in 1..=70_000u32 {
            client.seal_client(5, &i.to_le_bytes(), &mut sealed);
            if i % 1000 == 0 {
                assert_eq!(server.open_client(&sealed, &mut plain).unwrap().0, i);
            }
        }
    }

    /// The counter saturated at `u32::MAX` and every datagram after used that nonce
    /// again: now the session refuses to seal past its last counter.
    #[test]
    fn a_spent_session_seals_nothing_and_reuses_no_nonce() {
        let (mut client, mut server, _) = pair();
        let mut sealed = Vec::new();
        client.send_from(u32::MAX - 1);
        assert_eq!(
            client.seal_client(5, b"last", &mut sealed),
            Some(u32::MAX - 1)
        );
        assert_eq!(client.seal_client(5, b"again", &mut sealed), None);
        assert_eq!(client.seal_client(5, b"again", &mut sealed), None);
        server.send_from(u32::MAX);
        assert_eq!(server.seal_server(b"bye", &mut sealed), None);
    }

    #[test]
    fn a_forged_answer_leaves_the_handshake_able_to_read_the_real_one() {
        let key = ServerKey::generate();
        let mut client = ClientHandshake::new();
        let (answer, _) = accept(&key, &client.hello(), 9).unwrap();
        let mut forged = answer.clone();
        forged[40] ^= 1;
        assert!(client.finish(&forged).is_err());
        assert_eq!(client.finish(&answer).unwrap().server_key, key.public());
    }

    #[test]
    fn logged_keys_open_both_ways() {
        let key = ServerKey::generate();
        let mut hs = ClientHandshake::new();
        let (answer, mut server) = accept(&key, &hs.hello(), 2).unwrap();
        assert_eq!(hs.finish(&answer.clone()).unwrap().keys, None, "not asked");
        let mut hs = ClientHandshake::new();
        hs.log_keys();
        let (answer, mut server2) = accept(&key, &hs.hello(), 2).unwrap();
        let done = hs.finish(&answer).unwrap();
        let (up, down) = done.keys.unwrap();
        let (mut as_client, mut as_server) = Session::from_logged_keys(&up, &down);
        let mut client = done.session;
        let (mut sealed, mut plain) = (Vec::new(), Vec::new());
        client.seal_client(2, b"up", &mut sealed);
        assert!(as_server.open_client(&sealed, &mut plain).is_ok());
        assert_eq!(plain, b"up");
        server2.seal_server(b"down", &mut sealed);
        assert!(as_client.open_server(&sealed, &mut plain).is_ok());
        assert_eq!(plain, b"down");
        server.seal_server(b"other", &mut sealed);
        assert!(as_client.open_server(&sealed, &mut plain).is_err());
    }

    #[test]
    fn a_key_survives_its_file() {
        let key = ServerKey::generate();
        assert_eq!(ServerKey::from_file_text(&key.to_file_text()).unwrap(), key);
        assert!(ServerKey::from_file_text("zz").is_err());
        assert!(!format!("{key:?}").contains(&hex(&key.private)));
        assert_eq!(fingerprint(&key.public).len(), 19);
    }

    #[test]
    fn each_counter_is_taken_once() {
        let mut w = ReplayWindow::default();
        assert_eq!(w.check(0), Freshness::Replayed, "counters start at 1");
        for seq in [1, 3, 2, 70] {
            assert_ne!(w.check(seq), Freshness::Replayed, "{seq}");
            w.take(seq);
            assert_eq!(w.check(seq), Freshness::Replayed, "{seq} again");
        }
        assert_eq!(w.check(69), Freshness::Late);
        assert_eq!(w.check(7), Freshness::Late, "63 behind the newest");
        assert_eq!(w.check(6), Freshness::Replayed, "too old to tell");
        assert_eq!(w.check(71), Freshness::Newest);
    }
}
