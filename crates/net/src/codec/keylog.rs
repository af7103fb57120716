//! Reading sealed traffic from outside: the key log a relay uses to open datagrams.

use super::{
    ClientMsg, ServerMsg, Session, decode_client, decode_server, is_sealed, open_client,
    open_server, seal_server,
};

/// A reader of a key log (`NETARENA_KEYLOG`, see `net::secure`): the sessions its
/// lines name, with both ends each, so a relay that stands for the network (the tests'
/// fault relay, the benchmark's counting relay, `netarena relay`) can read sealed
/// traffic as a packet capture reads TLS with `SSLKEYLOGFILE`.
pub struct KeyLog {
    path: std::path::PathBuf,
    sessions: Vec<(Session, Session)>,
    lines: usize,
    scratch: Vec<u8>,
}

impl KeyLog {
    pub fn new(path: std::path::PathBuf) -> KeyLog {
        KeyLog {
            path,
            sessions: Vec::new(),
            lines: 0,
            scratch: Vec::new(),
        }
    }

    /// Reads the lines added since the last call (each: the two keys in hex).
    fn refresh(&mut self) {
        let text = std::fs::read_to_string(&self.path).unwrap_or_default();
        for line in text.lines().skip(self.lines) {
            let mut keys = line.split_whitespace().filter_map(crate::secure::parse_key);
            if let (Some(up), Some(down)) = (keys.next(), keys.next()) {
                self.sessions.push(Session::from_logged_keys(&up, &down));
            }
            self.lines += 1;
        }
    }

    /// The message a client datagram carries: a plain one as it is, a sealed one by
    /// whichever logged session opens it.
    pub fn client_msg(&mut self, bytes: &[u8]) -> Option<ClientMsg> {
        if !is_sealed(bytes) {
            return decode_client(bytes).ok();
        }
        for round in 0..2 {
            if round == 1 {
                self.refresh();
            }
            for (_, server_end) in &mut self.sessions {
                if let Ok((msg, _)) = open_client(server_end, bytes, &mut self.scratch) {
                    return Some(msg);
                }
            }
        }
        None
    }

    /// The message a server datagram carries, sealed or not.
    pub fn server_msg(&mut self, bytes: &[u8]) -> Option<ServerMsg> {
        if !is_sealed(bytes) {
            return decode_server(bytes).ok();
        }
        for round in 0..2 {
            if round == 1 {
                self.refresh();
            }
            for (client_end, _) in &mut self.sessions {
                if let Ok(msg) = open_server(Some(client_end), bytes, &mut self.scratch) {
                    return Some(msg);
                }
            }
        }
        None
    }
}

impl KeyLog {
    /// Seals `msg` as the server's datagram after `seen` (a sealed server datagram of a
    /// logged session, just read): what a test's relay standing for a hostile server,
    /// which holds the session's keys, sends in the real server's place. The relay must
    /// not forward the real server's datagram of that counter. None when no logged
    /// session opens `seen`.
    pub fn seal_server_after(
        &mut self,
        seen: &[u8],
        msg: &ServerMsg,
        out: &mut Vec<u8>,
    ) -> Option<()> {
        self.refresh();
        let mut scratch = Vec::new();
        let (counter, server_end) =
            self.sessions
                .iter_mut()
                .find_map(|(client_end, server_end)| {
                    let (counter, _) = client_end.open_server(seen, &mut scratch).ok()?;
                    Some((counter, server_end))
                })?;
        server_end.send_from(counter.checked_add(1)?);
        seal_server(msg, Some(server_end), out, &mut scratch).ok()
    }
}
