//! Instants in saved state (a recording's keyframes). An `Instant` has no serial form
//! and means nothing in another process, so a field that holds one is written as signed
//! nanoseconds from a *base* instant: `#[serde(with = "crate::instants")]`. The
//! caller sets the base around the whole (de)serialization with [`with_base`] (the
//! recording's start when writing, the replay's start when reading). Read back against
//! another base, every interval between two instants is the same to the nanosecond, and
//! intervals are all a client loop looks at.
//!
//! The fields come in a few shapes (`Instant`, `Option<Instant>`, `(Instant, T)`,
//! `VecDeque<(Instant, T)>`, maps to instants, …); [`Timed`] says how each one is turned
//! into plain data and back, so one `with` module serves them all. Outside
//! [`with_base`], or for an offset that does not fit, (de)serialization fails with an
//! error: it never panics.

use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde::de::{DeserializeOwned, Error as _};
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

thread_local! {
    static BASE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `f` with instants (de)serialized as offsets from `base`.
pub fn with_base<R>(base: Instant, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Instant>);
    impl Drop for Restore {
        fn drop(&mut self) {
            BASE.with(|b| b.set(self.0));
        }
    }
    let _restore = Restore(BASE.with(|b| b.replace(Some(base))));
    f()
}

fn base() -> Result<Instant, String> {
    BASE.with(Cell::get)
        .ok_or_else(|| "an instant outside instants::with_base".to_owned())
}

/// A shape of field holding instants, as plain data against a base.
pub trait Timed: Sized {
    type Form: Serialize + DeserializeOwned;
    fn to_form(&self, base: Instant) -> Option<Self::Form>;
    fn from_form(form: Self::Form, base: Instant) -> Option<Self>;
}

impl Timed for Instant {
    type Form = i64;
    fn to_form(&self, base: Instant) -> Option<i64> {
        match self.checked_duration_since(base) {
            Some(d) => i64::try_from(d.as_nanos()).ok(),
            None => i64::try_from(base.duration_since(*self).as_nanos())
                .ok()
                .map(|n| -n),
        }
    }
    fn from_form(nanos: i64, base: Instant) -> Option<Instant> {
        let d = Duration::from_nanos(nanos.unsigned_abs());
        if nanos >= 0 {
            base.checked_add(d)
        } else {
            base.checked_sub(d)
        }
    }
}

impl<T: Timed> Timed for Option<T> {
    type Form = Option<T::Form>;
    fn to_form(&self, base: Instant) -> Option<Self::Form> {
        match self {
            Some(t) => t.to_form(base).map(Some),
            None => Some(None),
        }
    }
    fn from_form(form: Self::Form, base: Instant) -> Option<Self> {
        match form {
            Some(f) => T::from_form(f, base).map(Some),
            None => Some(None),
        }
    }
}

impl<T: Clone + Serialize + DeserializeOwned> Timed for (Instant, T) {
    type Form = (i64, T);
    fn to_form(&self, base: Instant) -> Option<Self::Form> {
        Some((self.0.to_form(base)?, self.1.clone()))
    }
    fn from_form((at, t): Self::Form, base: Instant) -> Option<Self> {
        Some((Instant::from_form(at, base)?, t))
    }
}

impl<A, B> Timed for (Instant, A, B)
where
    A: Clone + Serialize + DeserializeOwned,
    B: Clone + Serialize + DeserializeOwned,
{
    type Form = (i64, A, B);
    fn to_form(&self, base: Instant) -> Option<Self::Form> {
        Some((self.0.to_form(base)?, self.1.clone(), self.2.clone()))
    }
    fn from_form((at, a, b): Self::Form, base: Instant) -> Option<Self> {
        Some((Instant::from_form(at, base)?, a, b))
    }
}

impl<T: Timed> Timed for VecDeque<T> {
    type Form = Vec<T::Form>;
    fn to_form(&self, base: Instant) -> Option<Self::Form> {
        self.iter().map(|t| t.to_form(base)).collect()
    }
    fn from_form(form: Self::Form, base: Instant) -> Option<Self> {
        form.into_iter().map(|f| T::from_form(f, base)).collect()
    }
}

impl<K, V> Timed for BTreeMap<K, V>
where
    K: Ord + Clone + Serialize + DeserializeOwned,
    V: Timed,
{
    type Form = Vec<(K, V::Form)>;
    fn to_form(&self, base: Instant) -> Option<Self::Form> {
        self.iter()
            .map(|(k, v)| Some((k.clone(), v.to_form(base)?)))
            .collect()
    }
    fn from_form(form: Self::Form, base: Instant) -> Option<Self> {
        form.into_iter()
            .map(|(k, f)| Some((k, V::from_form(f, base)?)))
            .collect()
    }
}

pub fn serialize<T: Timed, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    let base = base().map_err(S::Error::custom)?;
    value
        .to_form(base)
        .ok_or_else(|| S::Error::custom("an instant too far from the base"))?
        .serialize(s)
}

pub fn deserialize<'de, T: Timed, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    let base = base().map_err(D::Error::custom)?;
    let form = T::Form::deserialize(d)?;
    T::from_form(form, base).ok_or_else(|| D::Error::custom("an instant out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Held {
        #[serde(with = "super")]
        at: Instant,
        #[serde(with = "super")]
        feed: VecDeque<(Instant, String)>,
        #[serde(with = "super")]
        seen: BTreeMap<u8, Instant>,
        #[serde(with = "super")]
        maybe: Option<(Instant, u8)>,
    }

    fn json(h: &Held, base: Instant) -> Result<String, serde_json::Error> {
        with_base(base, || serde_json::to_string(h))
    }

    #[test]
    fn intervals_survive_a_new_base_and_nothing_works_without_one() {
        let t0 = Instant::now();
        let held = Held {
            at: t0 + Duration::from_nanos(1_234_567_891),
            feed: [(t0, "a".to_owned())].into(),
            seen: [(3, t0 + Duration::from_secs(9))].into(),
            // Before the base: a negative offset.
            maybe: t0.checked_sub(Duration::from_millis(5)).map(|t| (t, 7)),
        };
        let text = json(&held, t0).unwrap();
        let t1 = t0 + Duration::from_secs(1000);
        let back: Held = with_base(t1, || serde_json::from_str(&text)).unwrap();
        assert_eq!(back.at - t1, held.at - t0);
        assert_eq!(back.seen[&3] - t1, Duration::from_secs(9));
        assert_eq!(back.feed[0].0, t1);
        if let (Some(a), Some(b)) = (held.maybe, back.maybe) {
            assert_eq!(t0 - a.0, t1 - b.0);
        }
        assert_eq!(json(&back, t1).unwrap(), text, "the same bytes again");
        // No base: an error, not a panic.
        assert!(serde_json::to_string(&held).is_err());
        assert!(serde_json::from_str::<Held>(&text).is_err());
        // An offset past what an Instant holds: an error.
        let far = text.replacen("1234567891", &i64::MAX.to_string(), 1);
        let far: Result<Held, _> = with_base(t1, || serde_json::from_str(&far));
        assert!(far.is_err() || far.unwrap().at > t1);
    }
}
