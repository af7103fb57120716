//! The datagrams before a session, which go unsealed: connect requests (padded to probe
//! the path), the start of one that every protocol version shares, and discovery's
//! request and answer (an older server's answer too).

use super::{
    CodecError, MAX_CLIENT_DATAGRAM, MAX_SERVER_DATAGRAM, SERVER_DECODE_LIMIT, config,
    decode_server, decode_with, encode_client,
};
use crate::protocol::{
    ClientMsg, Cookie, HELLO_BYTES, MAGIC, MIN_CONNECT_BYTES, MIN_DISCOVER_BYTES, PROTOCOL_VERSION,
    ServerInfo, ServerMsg,
};

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

/// A connect request padded to the full [`MAX_CLIENT_DATAGRAM`]: that it arrives proves
/// the path carries datagrams that large, as QUIC's padded Initial does, and the server
/// budgets the session by its size ([`crate::wire_bytes::session_budget`]).
pub fn connect_request(
    name: &str,
    cookie: Option<Cookie>,
    hello: [u8; HELLO_BYTES],
    buf: &mut Vec<u8>,
) -> Result<(), CodecError> {
    connect_request_padded(name, cookie, hello, MAX_CLIENT_DATAGRAM, buf)
}

/// A connect request padded to `size` bytes (at least [`MIN_CONNECT_BYTES`], so the
/// server may answer it; at most [`MAX_CLIENT_DATAGRAM`]), or as small above that as a
/// long name allows.
pub fn connect_request_padded(
    name: &str,
    cookie: Option<Cookie>,
    hello: [u8; HELLO_BYTES],
    size: usize,
    buf: &mut Vec<u8>,
) -> Result<(), CodecError> {
    let size = size.clamp(MIN_CONNECT_BYTES, MAX_CLIENT_DATAGRAM);
    let mut msg = ClientMsg::Connect {
        magic: MAGIC,
        version: PROTOCOL_VERSION,
        name: name.to_owned(),
        cookie,
        hello,
        padding: Vec::new(),
    };
    encode_client(&msg, buf)?;
    // The padding's length prefix grows from one byte to three at 251: once it has
    // grown, the padding gives the two bytes back (a request of 250 to 253 bytes the
    // prefix cannot reach comes out a byte or two larger).
    let bare = buf.len();
    if let ClientMsg::Connect { padding, .. } = &mut msg {
        let mut fill = size.saturating_sub(bare);
        if fill >= 251 {
            fill = (fill - 2).max(251);
        }
        padding.resize(fill, 0);
    }
    encode_client(&msg, buf)
}

/// A discovery answer, from this version or an older one (before version 10 it did not
/// carry the key: its fingerprint is then zeros), so the browser can list every server
/// and mark the others incompatible.
pub fn decode_info(bytes: &[u8]) -> Option<ServerInfo> {
    if let Ok(ServerMsg::Info(info)) = decode_server(bytes) {
        return Some(info);
    }
    type Older = (u32, u16, u32, String, String, u16, u16);
    let (variant, version, nonce, name, map, players, max_players) =
        decode_with::<Older, SERVER_DECODE_LIMIT>(bytes, MAX_SERVER_DATAGRAM, config()).ok()?;
    (variant == INFO_VARIANT).then_some(ServerInfo {
        version,
        nonce,
        name,
        map,
        players,
        max_players,
        key: [0; 8],
    })
}

/// `ServerMsg::Info`'s variant index.
const INFO_VARIANT: u32 = 6;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode_client, encode_server};

    #[test]
    fn connect_requests_are_padded_and_peekable() {
        let mut buf = Vec::new();
        connect_request("ann", None, [7; HELLO_BYTES], &mut buf).unwrap();
        assert_eq!(buf.len(), MAX_CLIENT_DATAGRAM);
        for size in [0, MIN_CONNECT_BYTES, 249, 254, 548, 1000, 5000] {
            let cookie = (size > 500).then_some(Cookie {
                window: 7,
                nonce: 9,
                mac: u64::MAX,
            });
            connect_request_padded("ann", cookie, [7; HELLO_BYTES], size, &mut buf).unwrap();
            let want = size.clamp(MIN_CONNECT_BYTES, MAX_CLIENT_DATAGRAM);
            assert_eq!(buf.len(), want, "asked for {size}");
            let got = decode_client(&buf);
            assert!(
                matches!(got, Ok(ClientMsg::Connect { .. })),
                "{size}: {got:?}"
            );
        }
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

    #[test]
    fn an_older_servers_discovery_answer_still_reads() {
        let info = ServerInfo {
            version: 9,
            nonce: 4,
            name: "old".into(),
            map: "duel".into(),
            players: 1,
            max_players: 8,
            key: [0; 8],
        };
        let mut buf = Vec::new();
        encode_server(&ServerMsg::Info(info.clone()), &mut buf).unwrap();
        assert_eq!(decode_info(&buf), Some(info.clone()));
        // Version 9's layout: the same without the key.
        buf.truncate(buf.len() - 8);
        assert_eq!(decode_info(&buf), Some(info));
        assert_eq!(decode_info(&[6, 1]), None);
    }
}
