//! `netarena lab`: the server and several clients side by side in this terminal, each
//! under its own simulated network, on one clock that can stop; or, headless, the same
//! run as fast as the machine allows, ending in a report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize};

use anyhow::Context;

use netarena::lab::headless::Recording;
use netarena::lab::{LabConfig, MAX_CLIENTS, headless, terminal};
use netarena::record::recorder::Recorder;
use netarena::server::ServerConfig;

use super::args::LabArgs;
use super::map_file;
use super::signals::finish;

/// The profiles clients get when `--profiles` names fewer: a bad path next to a LAN,
/// the contrast the lab is for, then Wi-Fi and mobile.
const DEFAULT_PROFILES: [&str; MAX_CLIENTS] = ["bad", "lan", "wifi", "mobile"];

impl LabArgs {
    fn config(&self) -> anyhow::Result<LabConfig> {
        let clients = usize::from(self.clients);
        if self.profiles.len() > clients {
            anyhow::bail!(
                "--profiles names {} profiles for {clients} clients (add --clients {})",
                self.profiles.len(),
                self.profiles.len().min(MAX_CLIENTS)
            );
        }
        let profiles = (0..clients)
            .map(|n| {
                self.profiles
                    .get(n)
                    .map_or(DEFAULT_PROFILES[n], |p| p.trim())
                    .to_owned()
            })
            .collect();
        let mut server = ServerConfig::new(map_file::load(&self.map)?);
        server.bots = self.bots;
        server.bot_skill = self.bot_skill;
        server.input_buffer = self.input_buffer;
        server.seed = self.seed;
        server.name = "lab".to_owned();
        Ok(LabConfig {
            server,
            profiles,
            walkers: self.walkers,
            keyboard: if self.headless { 0 } else { 2 },
        })
    }
}

pub(crate) fn run(
    args: LabArgs,
    stop: &AtomicBool,
    signal: &AtomicUsize,
) -> anyhow::Result<ExitCode> {
    let config = args.config()?;
    config.validate()?;
    let recordings = recordings(args.record.as_deref(), config.profiles.len())?;
    if args.headless {
        let report =
            headless::run_recorded(&config, args.seconds, args.report.as_deref(), recordings)?;
        if args.report.is_none() {
            println!("{}", serde_json::to_string_pretty(&report)?);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let names: Vec<String> = recordings.iter().map(|r| r.name.clone()).collect();
    let cap = (args.fps_cap > 0).then_some(args.fps_cap);
    let theme = args.theme.resolve();
    let outcome = terminal::run(
        &config,
        cap,
        theme,
        stop,
        recordings,
        args.report.as_deref(),
    );
    // The terminal is ours again: say where each client went.
    for (n, name) in names.iter().enumerate() {
        println!("client {} recorded to {name}", n + 1);
    }
    finish(outcome, signal)
}

/// One recorder per client, every file created before the lab starts (so a bad path
/// fails at once); none without `--record`.
fn recordings(path: Option<&Path>, clients: usize) -> anyhow::Result<Vec<Recording>> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    (1..=clients)
        .map(|n| {
            let file = client_file(path, n);
            let recorder = Recorder::create(&file)
                .with_context(|| format!("cannot create the recording {}", file.display()))?;
            Ok(Recording {
                tap: Box::new(recorder),
                name: file.display().to_string(),
            })
        })
        .collect()
}

/// Client 1's recording is `path`; client n's has `-n` before the extension, if any.
fn client_file(path: &Path, n: usize) -> PathBuf {
    if n == 1 {
        return path.to_owned();
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{n}"),
    };
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_files_get_their_number_before_the_extension() {
        let name = |p: &str, n| client_file(Path::new(p), n).display().to_string();
        assert_eq!(name("runs/lab.narec", 1), "runs/lab.narec");
        assert_eq!(name("runs/lab.narec", 2), "runs/lab-2.narec");
        assert_eq!(name("lab", 4), "lab-4");
        assert_eq!(name("a.b/lab.x.narec", 3), "a.b/lab.x-3.narec");
    }
}
