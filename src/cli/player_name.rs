//! The player name when `--name` is not given: never one name for everybody.

/// The login name, else this machine's name, else `player-` and four random digits: never
/// one name for everybody, so two friends without `$USER` do not both join as `player`.
pub(crate) fn default_name() -> String {
    let users = ["USER", "USERNAME", "LOGNAME"].map(|k| std::env::var(k).ok());
    pick_name(users, host_name(), rand::random_range(0..10_000))
}

fn pick_name(
    users: impl IntoIterator<Item = Option<String>>,
    host: Option<String>,
    digits: u16,
) -> String {
    users
        .into_iter()
        .flatten()
        .map(|u| u.trim().to_owned())
        .find(|u| !u.is_empty())
        .or_else(|| {
            // Its first label: "ann-laptop", not "ann-laptop.local".
            let host = host?;
            let label = host.trim().split('.').next()?.to_owned();
            (!label.is_empty() && label != "localhost").then_some(label)
        })
        .unwrap_or_else(|| format!("player-{digits:04}"))
}

/// This machine's name, where it can be read without a system call.
fn host_name() -> Option<String> {
    let from_env = ["HOSTNAME", "COMPUTERNAME"]
        .into_iter()
        .find_map(|k| std::env::var(k).ok());
    from_env.or_else(|| {
        ["/proc/sys/kernel/hostname", "/etc/hostname"]
            .into_iter()
            .find_map(|p| std::fs::read_to_string(p).ok())
    })
}

#[cfg(test)]
mod tests {
    use super::pick_name;

    /// With `$USER` empty everybody joined as `player`.
    #[test]
    fn the_default_name_is_the_login_then_the_machine_then_random() {
        let some = |s: &str| Some(s.to_owned());
        let name = |users: [Option<String>; 3], host: Option<String>| pick_name(users, host, 42);
        assert_eq!(name([some("ann"), some("bob"), None], None), "ann");
        assert_eq!(name([some(""), some("bob"), some("cy")], None), "bob");
        assert_eq!(name([None, some(" "), some("cy")], None), "cy");
        let host = some("dee-laptop.local\n");
        assert_eq!(name([some(""), None, None], host), "dee-laptop");
        assert_eq!(name([None, None, None], some("localhost")), "player-0042");
        assert_eq!(name([None, None, None], None), "player-0042");
        let a = pick_name([None], None, rand::random_range(0..10_000));
        assert!(a.len() == 11 && a.starts_with("player-"), "{a}");
    }
}
