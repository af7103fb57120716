//! Two network namespaces joined by a veth pair: a server's and a client's, each with
//! the kernel's own `tbf` on its egress when asked, so a test's faults come from the
//! kernel, not from netarena. Needs root (`ip netns`, `tc`). Deleting a namespace
//! deletes its end of the pair, so dropping the [`Pair`] leaves nothing behind.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::process::{Command, Output};

/// The server's and the client's address on the pair.
pub const SERVER_IP: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
pub const CLIENT_IP: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);
/// Their IPv6 addresses, after [`Pair::add_ipv6`] (unique local, no duplicate address
/// detection, so they work at once).
pub const SERVER_IP6: Ipv6Addr = Ipv6Addr::new(0xfd77, 0, 0, 0, 0, 0, 0, 1);
pub const CLIENT_IP6: Ipv6Addr = Ipv6Addr::new(0xfd77, 0, 0, 0, 0, 0, 0, 2);

/// `tc qdisc add dev IF root tbf rate RATE burst BURST limit LIMIT` on one egress.
#[derive(Clone, Copy, Debug)]
pub struct Tbf {
    pub rate_kbit: u32,
    /// Bytes the bucket holds: a frame larger than this never leaves (the kernel drops
    /// it), which is how a small path MTU is built.
    pub burst: u32,
    /// Bytes of queue in front of it.
    pub limit: u32,
}

/// Which end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Server,
    Client,
}

pub struct Pair {
    server_ns: String,
    client_ns: String,
    server_if: String,
    client_if: String,
}

/// [`Pair::new`], or `None` when it cannot be built here, after saying why: only
/// outside CI. Under `CI=true` a kernel test that cannot run fails.
pub fn pair_or_skip(tag: &str, tbf: Option<Tbf>) -> Option<Pair> {
    match Pair::new(tag, tbf) {
        Ok(pair) => Some(pair),
        Err(why) => {
            crate::support::cannot_run(&format!(
                "{why} (kernel tests need root, ip netns, veth and tc tbf)"
            ));
            None
        }
    }
}

fn run(args: &[&str]) -> Result<Output, String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", args[0]))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "`{}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl Pair {
    /// A pair named after `tag` (a few letters) and this process, `tbf` on both egresses
    /// (none: a clean link).
    pub fn new(tag: &str, tbf: Option<Tbf>) -> Result<Pair, String> {
        let id = std::process::id() % 100_000;
        let (s_if, c_if) = (format!("v{tag}{id}s"), format!("v{tag}{id}c"));
        let pair = Pair {
            server_ns: format!("na{tag}{id}s"),
            client_ns: format!("na{tag}{id}c"),
            server_if: s_if.clone(),
            client_if: c_if.clone(),
        };
        run(&["ip", "netns", "add", &pair.server_ns])?;
        run(&["ip", "netns", "add", &pair.client_ns])?;
        run(&[
            "ip", "link", "add", &s_if, "type", "veth", "peer", "name", &c_if,
        ])?;
        for (ns, dev, ip) in [
            (&pair.server_ns, &s_if, SERVER_IP),
            (&pair.client_ns, &c_if, CLIENT_IP),
        ] {
            run(&["ip", "link", "set", dev, "netns", ns])?;
            let addr = format!("{ip}/30");
            run(&["ip", "-n", ns, "addr", "add", &addr, "dev", dev])?;
            run(&["ip", "-n", ns, "link", "set", dev, "up"])?;
            run(&["ip", "-n", ns, "link", "set", "lo", "up"])?;
            if let Some(t) = tbf {
                let (rate, burst, limit) = (
                    format!("{}kbit", t.rate_kbit),
                    t.burst.to_string(),
                    t.limit.to_string(),
                );
                run(&[
                    "ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf",
                    "rate", &rate, "burst", &burst, "limit", &limit,
                ])?;
            }
        }
        Ok(pair)
    }

    fn ns(&self, side: Side) -> &str {
        match side {
            Side::Server => &self.server_ns,
            Side::Client => &self.client_ns,
        }
    }

    /// `program` run inside `side`'s namespace.
    pub fn command(&self, side: Side, program: &str) -> Command {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", self.ns(side), program]);
        cmd
    }

    /// What `tc -s qdisc` says of `side`'s egress: sent and dropped, in words.
    pub fn qdisc_stats(&self, side: Side) -> String {
        run(&[
            "ip",
            "netns",
            "exec",
            self.ns(side),
            "tc",
            "-s",
            "qdisc",
            "show",
        ])
        .map(|o| String::from_utf8_lossy(&o.stdout).replace('\n', " "))
        .unwrap_or_else(|e| e)
    }
}

impl Pair {
    /// Packets `side`'s `tbf` dropped: too large for its burst, or over its queue.
    pub fn tbf_dropped(&self, side: Side) -> u64 {
        let stats = self.qdisc_stats(side);
        let tbf = stats
            .split("qdisc tbf")
            .nth(1)
            .unwrap_or_else(|| panic!("no tbf: {stats}"));
        tbf.split("dropped ")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no drop count: {stats}"))
    }
}

impl Pair {
    /// Gives both ends IPv6 addresses ([`SERVER_IP6`], [`CLIENT_IP6`]) as well.
    pub fn add_ipv6(&self) -> Result<(), String> {
        for (side, dev, ip) in [
            (Side::Server, &self.server_if, SERVER_IP6),
            (Side::Client, &self.client_if, CLIENT_IP6),
        ] {
            let addr = format!("{ip}/64");
            run(&[
                "ip",
                "-n",
                self.ns(side),
                "-6",
                "addr",
                "add",
                &addr,
                "dev",
                dev,
                "nodad",
            ])?;
        }
        Ok(())
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        for ns in [&self.server_ns, &self.client_ns] {
            let _ = run(&["ip", "netns", "del", ns]);
        }
    }
}
