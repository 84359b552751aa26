//! Values written by hand over a kept one: a caller that knows the shape of what it writes
//! (the `tools/call` envelope) fills the kept value's entries itself, in place, and leaves
//! the parts it does not know to [`write_into`].

use serde::Serialize;
use serde_json::{Error, Value};

use super::{ReusedValue, Slot, KEPT, NODE_BYTES};

/// A value written by `write` over one kept from an earlier call on this thread (or over
/// `null`), like [`super::to_value`]; `write` returns roughly how many bytes the value holds
/// (see [`ReusedValue::recycle`]).
///
/// # Errors
///
/// `write`'s error; the value written so far is dropped.
pub(crate) fn write_over(
    write: impl FnOnce(&mut Value) -> Result<usize, Error>,
) -> Result<ReusedValue, Error> {
    let mut value = take_kept();
    let held = write(&mut value)?;
    Ok(ReusedValue { value, held })
}

/// A value kept from an earlier call on this thread, or `null`.
fn take_kept() -> Value {
    KEPT.try_with(|kept| kept.try_borrow_mut().ok().and_then(|mut kept| kept.pop()))
        .ok()
        .flatten()
        .unwrap_or(Value::Null)
}

/// Writes `item` over `slot` as [`super::to_value`] writes a value over a kept one; returns
/// roughly how many bytes the written value holds.
///
/// # Errors
///
/// When this writer refuses a shape it leaves to `serde_json` at the top of a map (a key
/// that is not a string) or `item` fails to serialize: `slot` is then partly written.
pub(crate) fn write_into<T: Serialize + ?Sized>(
    slot: &mut Value,
    item: &T,
) -> Result<usize, Error> {
    let mut held = 0;
    item.serialize(Slot {
        slot,
        held: &mut held,
    })?;
    Ok(held)
}

/// A scalar member of an object written by [`write_scalars`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scalar {
    /// A boolean.
    Bool(bool),
    /// An unsigned integer.
    U64(u64),
}

/// Whether `map` holds exactly `keys`, in its own order.
#[inline]
fn holds_exactly<'k>(
    map: &serde_json::Map<String, Value>,
    len: usize,
    keys: impl Iterator<Item = &'k str>,
) -> bool {
    if map.len() != len {
        return false;
    }
    let mut held = map.keys();
    for key in keys {
        match held.next() {
            Some(held) if held.as_str() == key => {}
            _ => return false,
        }
    }
    true
}

/// `slot` made an object holding exactly `keys` (distinct), their old values kept when they
/// were there: the values, in the order of `keys`, and roughly how many bytes the object
/// itself holds. The object is written in place when it already holds `keys` in its own
/// order (a kept value of the same shape); otherwise it is built anew with `null` values.
pub(crate) fn fields<'v, const N: usize>(
    slot: &'v mut Value,
    keys: &[&'static str; N],
) -> ([&'v mut Value; N], usize) {
    let in_place =
        matches!(&*slot, Value::Object(map) if holds_exactly(map, N, keys.iter().copied()));
    if !in_place {
        *slot = Value::Object(
            keys.iter()
                .map(|key| ((*key).to_owned(), Value::Null))
                .collect(),
        );
    }
    let Value::Object(map) = slot else {
        unreachable!("the slot was just made an object")
    };
    let mut found: [Option<&'v mut Value>; N] = [const { None }; N];
    if in_place {
        // The map's order is the order of `keys`.
        for (place, value) in found.iter_mut().zip(map.values_mut()) {
            *place = Some(value);
        }
    } else {
        for (key, value) in map.iter_mut() {
            if let Some(place) = keys
                .iter()
                .position(|wanted| *wanted == key.as_str())
                .and_then(|at| found.get_mut(at))
            {
                *place = Some(value);
            }
        }
    }
    let held = keys.iter().fold(NODE_BYTES, |held, key| {
        held.saturating_add(NODE_BYTES.saturating_add(key.len()))
    });
    let values =
        found.map(|value| value.unwrap_or_else(|| unreachable!("every key is in the map")));
    (values, held)
}

/// `slot` made an object holding exactly `members` (distinct keys), in place when it
/// already holds their keys in its own order (see [`fields`]); returns roughly how many
/// bytes it holds.
pub(crate) fn write_scalars(slot: &mut Value, members: &[(&'static str, Scalar)]) -> usize {
    let held = NODE_BYTES.saturating_add(members.len().saturating_mul(2 * NODE_BYTES));
    if let Value::Object(map) = slot {
        if map.len() == members.len() {
            // One pass: each key checked, then its value written; on a key that differs,
            // the object is built anew below (the values written so far are dropped).
            let mut same_keys = true;
            for ((key, place), (wanted, value)) in map.iter_mut().zip(members) {
                if key.as_str() != *wanted {
                    same_keys = false;
                    break;
                }
                let _held: usize = write_scalar(place, *value);
            }
            if same_keys {
                return held;
            }
        }
    }
    *slot = Value::Object(
        members
            .iter()
            .map(|(key, value)| ((*key).to_owned(), scalar_value(*value)))
            .collect(),
    );
    held
}

/// Writes `value` over `slot`; returns roughly how many bytes it holds.
pub(crate) fn write_scalar(slot: &mut Value, value: Scalar) -> usize {
    match (&mut *slot, value) {
        (Value::Bool(old), Scalar::Bool(new)) => *old = new,
        (Value::Number(old), Scalar::U64(new)) => *old = new.into(),
        (slot, value) => *slot = scalar_value(value),
    }
    NODE_BYTES
}

fn scalar_value(value: Scalar) -> Value {
    match value {
        Scalar::Bool(value) => Value::Bool(value),
        Scalar::U64(value) => Value::from(value),
    }
}

/// `slot` made an array of exactly one element, the old first element kept when there was
/// one: that element, and roughly how many bytes the array itself holds.
pub(crate) fn one_item(slot: &mut Value) -> (&mut Value, usize) {
    if !slot.is_array() {
        *slot = Value::Array(Vec::with_capacity(1));
    }
    let Value::Array(items) = slot else {
        unreachable!("the slot was just made an array")
    };
    items.truncate(1);
    if items.is_empty() {
        items.push(Value::Null);
    }
    let item = items
        .first_mut()
        .unwrap_or_else(|| unreachable!("the array holds one element"));
    (item, NODE_BYTES)
}

/// Writes `text` over `slot` (a string keeps its buffer); returns roughly how many bytes
/// it holds.
pub(crate) fn write_str(slot: &mut Value, text: &str) -> usize {
    if let Value::String(old) = slot {
        old.clear();
        old.push_str(text);
    } else {
        *slot = Value::String(text.to_owned());
    }
    let capacity = match slot {
        Value::String(held) => held.capacity(),
        _ => 0,
    };
    NODE_BYTES.saturating_add(capacity)
}

/// Puts `text` in `slot` as it is, without copying it; returns roughly how many bytes the slot
/// holds, and the string it held before (for the caller to recycle), if any.
pub(crate) fn put_string(slot: &mut Value, text: String) -> (usize, Option<String>) {
    let held = NODE_BYTES.saturating_add(text.capacity());
    match std::mem::replace(slot, Value::String(text)) {
        Value::String(old) => (held, Some(old)),
        _ => (held, None),
    }
}
