//! `netarena bench`: frame rendering, the server tick, or bandwidth over loopback.

use std::process::ExitCode;

use netarena::bench::{self, latency, net, render, server};

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
        BenchCommand::Latency { samples } => {
            let opts = latency::LatencyOptions {
                binary: std::env::current_exe()?,
                samples: if args.quick { samples.min(5) } else { samples },
            };
            bench::print("bench latency", &latency::run(&opts)?, args.json)?;
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
