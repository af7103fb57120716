//! The one place that turns messages into bytes and back. Every decode of network bytes
//! is size-checked first and then runs under a bincode limit, so a datagram can never
//! make us allocate more than it could honestly need.

use bincode::config::{Configuration, Limit, LittleEndian, Varint};
use serde::Serialize;

use super::protocol::{ClientMsg, ServerMsg};

/// Largest client datagram we accept: connect requests and input packets are small.
pub const MAX_CLIENT_DATAGRAM: usize = 1200;
/// Largest server datagram: the welcome carries the map text.
pub const MAX_SERVER_DATAGRAM: usize = 16 * 1024;

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
    let mut sink = SizeCounter(0);
    match bincode::serde::encode_into_std_write(msg, &mut sink, config::<MAX_SERVER_DATAGRAM>()) {
        Ok(n) => n,
        Err(_) => sink.0,
    }
}

/// Counts bytes instead of storing them.
struct SizeCounter(usize);

impl std::io::Write for SizeCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn decode_client(bytes: &[u8]) -> Result<ClientMsg, CodecError> {
    decode_with(bytes, config::<MAX_CLIENT_DATAGRAM>())
}

pub fn decode_server(bytes: &[u8]) -> Result<ServerMsg, CodecError> {
    decode_with(bytes, config::<MAX_SERVER_DATAGRAM>())
}

fn decode_with<T: serde::de::DeserializeOwned, const N: usize>(
    bytes: &[u8],
    cfg: Config<N>,
) -> Result<T, CodecError> {
    if bytes.len() > N {
        return Err(CodecError::TooLarge(bytes.len()));
    }
    let (msg, used) = bincode::serde::decode_from_slice(bytes, cfg)?;
    if used != bytes.len() {
        return Err(CodecError::Trailing(bytes.len() - used));
    }
    Ok(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::protocol::{MAGIC, PROTOCOL_VERSION};

    #[test]
    fn round_trip() {
        let msg = ClientMsg::Connect {
            magic: MAGIC,
            version: PROTOCOL_VERSION,
            name: "ann".into(),
        };
        let mut buf = Vec::new();
        encode_client(&msg, &mut buf).unwrap();
        assert_eq!(decode_client(&buf).unwrap(), msg);
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
