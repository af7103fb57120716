//! `netarena bench`: frame rendering, the server tick, bandwidth over loopback, or the
//! headless lab's speed.

use std::process::ExitCode;

use netarena::bench::{self, lab, net, render, server};

use super::args::{BenchArgs, BenchCommand};

pub(crate) fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    match args.which {
        BenchCommand::Render {
            width,
            height,
            players,
            frames,
            overlays,
        } => {
            let opts = render::RenderOptions {
                width,
                height,
                players,
                frames: if args.quick { frames.min(50) } else { frames },
                overlays: overlays == "all",
            };
            bench::print("bench render", &render::run(&opts)?, args.json)?;
        }
        BenchCommand::Server {
            players,
            bots,
            ticks,
        } => {
            let opts = server::ServerOptions {
                players,
                bots,
                ticks: if args.quick { ticks.min(60) } else { ticks },
            };
            bench::print("bench server", &server::run(&opts)?, args.json)?;
        }
        BenchCommand::Latency { samples } => latency(samples, args.quick, args.json)?,
        BenchCommand::Lab { seconds } => {
            let opts = lab::LabBenchOptions {
                seconds: if args.quick {
                    seconds.min(1.0)
                } else {
                    seconds.max(0.1)
                },
            };
            bench::print("bench lab", &lab::run(&opts)?, args.json)?;
        }
        BenchCommand::Net {
            players,
            bots,
            map,
            seconds,
            net,
        } => {
            let opts = net::NetBenchOptions {
                players: if args.quick { players.min(2) } else { players },
                bots: if args.quick { bots.min(3) } else { bots },
                map,
                seconds: if args.quick {
                    seconds.min(1.5)
                } else {
                    seconds
                },
                conditions: net.conditions()?,
            };
            bench::print("bench net", &net::run(&opts)?, args.json)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench latency`: the game in a pseudo-terminal of the bench's own.
#[cfg(unix)]
fn latency(samples: u32, quick: bool, json: bool) -> anyhow::Result<()> {
    use netarena::bench::latency;
    let opts = latency::LatencyOptions {
        binary: std::env::current_exe()?,
        samples: if quick { samples.min(5) } else { samples },
    };
    bench::print("bench latency", &latency::run(&opts)?, json)
}

/// `bench latency` where there is no pseudo-terminal to run the game in: one line.
#[cfg(not(unix))]
fn latency(_samples: u32, _quick: bool, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("bench latency is Unix only: it runs the game in a pseudo-terminal")
}
