//! A config file's TOML values as flag settings: a `flag = value` line, the values a
//! flag may take (a switch, text, a list), and a `[keys]` section as key bindings.
//! Which subcommand takes which flag is the parent's to check, against clap.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use netarena::client::play::input::Bindings;

/// One `flag = value` line.
pub(super) struct Setting {
    pub(super) line: usize,
    pub(super) flag: String,
    pub(super) value: Value,
}

/// A value, before it is known which subcommand's flag it feeds.
pub(super) enum Value {
    Switch(bool),
    Text(Vec<String>),
}

/// The line (from 1) that byte `at` of `text` is on.
pub(super) fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The key bindings of a `[keys]` section.
pub(super) fn bindings(text: &str, table: &DeTable) -> Result<Bindings, (usize, String)> {
    let mut keys = Bindings::default();
    for (action, value) in table {
        let line = line_of(text, action.span().start);
        let names: Vec<&str> = match value.get_ref() {
            DeValue::String(s) => vec![s.as_ref()],
            DeValue::Array(a) => a
                .iter()
                .map(|v| v.get_ref().as_str())
                .collect::<Option<_>>()
                .ok_or((line, "a key is a string, or a list of strings".to_owned()))?,
            _ => return Err((line, "a key is a string, or a list of strings".to_owned())),
        };
        keys.bind(action.get_ref(), &names)
            .map_err(|why| (line, why))?;
    }
    Ok(keys)
}

/// One `flag = value` from the file, not yet checked against a subcommand.
pub(super) fn setting(
    text: &str,
    key: &Spanned<std::borrow::Cow<'_, str>>,
    value: &Spanned<DeValue<'_>>,
) -> Result<Setting, (usize, String)> {
    let line = line_of(text, key.span().start);
    let flag = key.get_ref().to_string();
    let scalar = |v: &DeValue| -> Option<String> {
        match v {
            DeValue::String(s) => Some(s.to_string()),
            DeValue::Integer(i) if i.radix() == 10 => Some(i.as_str().replace('_', "")),
            DeValue::Float(f) => Some(f.as_str().replace('_', "")),
            _ => None,
        }
    };
    let value = match value.get_ref() {
        DeValue::Boolean(b) => Value::Switch(*b),
        DeValue::Array(a) => Value::Text(
            a.iter()
                .map(|v| scalar(v.get_ref()))
                .collect::<Option<_>>()
                .ok_or((line, format!("--{flag}: a list of strings or numbers")))?,
        ),
        v => Value::Text(vec![scalar(v).ok_or((
            line,
            format!("--{flag}: a string, a decimal number, true or false"),
        ))?]),
    };
    Ok(Setting { line, flag, value })
}
