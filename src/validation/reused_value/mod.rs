//! Serializing into a [`Value`] whose maps, arrays and strings are reused.
//!
//! Outbound validation checks the value a result was written from. Building that value with
//! `serde_json::to_value` allocates every map, key and string of it, and dropping it frees
//! them again: for a small `tools/call` result that is most of the cost of validating it.
//! [`to_value`] gives the same value (property-tested against `serde_json::to_value`) but
//! writes it over a value kept from an earlier call on the same thread: a map entry whose key
//! is already there is overwritten in place, a string keeps its buffer, an array its
//! elements. [`ReusedValue::recycle`] hands the value back once it has been read.
//!
//! Only plain shapes are reused: maps with string keys, structs, sequences, strings,
//! integers, booleans and nulls. Everything else (floats, enum variants other than unit
//! ones, raw values, maps with non-string keys) is built by `serde_json`'s own value
//! serializer, so the result never differs from `serde_json::to_value`'s. A value is kept for
//! reuse only up to [`KEEP_BYTES_MAX`], so a large result (a megabyte) never stays resident
//! after its call, while the buffer of a 64 KiB text is written over by the next call on the
//! thread instead of going back to the allocator.

use std::cell::RefCell;

use serde::ser::{self, Serialize};
use serde_json::{Error, Map, Value};

/// The most bytes (strings, keys and nodes, counted roughly) a value may hold to be kept for
/// reuse; a larger one is dropped when recycled. At most [`KEEP_VALUES_MAX`] of them per
/// thread: 1 MiB at worst. With 16 KiB (before issue 12's stop 24), the 64 KiB text of a
/// call was allocated and freed on every call, and glibc, trimming a worker's arena, gave
/// its pages back and faulted them in again: 44 page faults per sequential 64 KiB call in
/// half the runs, against 1.7 now (BENCHMARKS.md, "Sequential 64 KiB").
const KEEP_BYTES_MAX: usize = 256 * 1024;

/// The most values kept per thread.
const KEEP_VALUES_MAX: usize = 4;

/// Bytes counted per JSON node (the size of a `Value`, and a little for its map entry).
const NODE_BYTES: usize = 48;

/// The struct names `serde_json` gives its own special values (raw values, numbers): those
/// are always built by `serde_json`.
const SERDE_JSON_PRIVATE: &str = "$serde_json::private::";

thread_local! {
    static KEPT: RefCell<Vec<Value>> = const { RefCell::new(Vec::new()) };
}

/// A value built by [`to_value`]; read it with [`ReusedValue::get`], give it back with
/// [`ReusedValue::recycle`] (or drop it).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReusedValue {
    value: Value,
    /// Roughly how many bytes the value holds (`usize::MAX` when unknown).
    held: usize,
}

impl ReusedValue {
    /// The value.
    pub(crate) fn get(&self) -> &Value {
        &self.value
    }

    /// Keeps the value for the next [`to_value`] on this thread, if it is small and the
    /// thread keeps fewer than [`KEEP_VALUES_MAX`]; drops it otherwise.
    pub(crate) fn recycle(self) {
        if self.held > KEEP_BYTES_MAX {
            return;
        }
        // During thread teardown the keep is gone: the value is simply dropped.
        let _teardown: Result<(), std::thread::AccessError> = KEPT.try_with(|kept| {
            if let Ok(mut kept) = kept.try_borrow_mut() {
                if kept.len() < KEEP_VALUES_MAX {
                    kept.push(self.value);
                }
            }
        });
    }
}

/// `serde_json::to_value(item)`, written over a value kept from an earlier call.
///
/// # Errors
///
/// The error `serde_json::to_value` gives for `item`.
pub(crate) fn to_value<T: Serialize + ?Sized>(item: &T) -> Result<ReusedValue, Error> {
    write_over(|value| write_into(value, item)).or_else(|_| {
        // A key that is not a string (or another shape this writer leaves to `serde_json`
        // at the top of a map): `serde_json` builds the whole value, or gives its error.
        serde_json::to_value(item).map(|value| ReusedValue {
            value,
            held: usize::MAX,
        })
    })
}

/// Roughly how many bytes `value` holds (for values `serde_json` built).
fn weight(value: &Value) -> usize {
    NODE_BYTES.saturating_add(match value {
        Value::String(text) => text.capacity(),
        Value::Array(items) => items.iter().map(weight).fold(0, usize::saturating_add),
        Value::Object(map) => map
            .iter()
            .map(|(key, item)| key.capacity().saturating_add(weight(item)))
            .fold(0, usize::saturating_add),
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    })
}

/// An entry of a map being written: its key and the old value to write over.
type Entry = (String, Value);

/// Writes one value over `slot`.
struct Slot<'a> {
    slot: &'a mut Value,
    held: &'a mut usize,
}

impl Slot<'_> {
    fn set(self, value: Value) {
        *self.held = self.held.saturating_add(weight(&value));
        *self.slot = value;
    }

    fn scalar(self, built: Result<Value, Error>) -> Result<(), Error> {
        built.map(|value| self.set(value))
    }
}

/// The serializer `serde_json::to_value` uses.
fn json() -> serde_json::value::Serializer {
    serde_json::value::Serializer
}

/// `serde_json`'s states for the compound values it builds here.
type JsonTupleVariant = <serde_json::value::Serializer as ser::Serializer>::SerializeTupleVariant;
type JsonStructVariant = <serde_json::value::Serializer as ser::Serializer>::SerializeStructVariant;
type JsonStruct = <serde_json::value::Serializer as ser::Serializer>::SerializeStruct;

macro_rules! delegate_scalars {
    ($($method:ident($type:ty)),* $(,)?) => {
        $(
            fn $method(self, value: $type) -> Result<(), Error> {
                self.scalar(json().$method(value))
            }
        )*
    };
}

impl<'a> ser::Serializer for Slot<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSlot<'a>;
    type SerializeTuple = SeqSlot<'a>;
    type SerializeTupleStruct = SeqSlot<'a>;
    type SerializeTupleVariant = Built<'a, JsonTupleVariant>;
    type SerializeMap = MapSlot<'a>;
    type SerializeStruct = StructSlot<'a>;
    type SerializeStructVariant = Built<'a, JsonStructVariant>;

    delegate_scalars! {
        serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_i128(i128), serialize_u8(u8), serialize_u16(u16),
        serialize_u32(u32), serialize_u64(u64), serialize_u128(u128), serialize_f32(f32),
        serialize_f64(f64), serialize_char(char), serialize_bytes(&[u8]),
    }

    fn serialize_str(self, value: &str) -> Result<(), Error> {
        if let Value::String(text) = self.slot {
            text.clear();
            text.push_str(value);
            *self.held = self.held.saturating_add(NODE_BYTES + text.capacity());
            return Ok(());
        }
        self.set(Value::String(value.to_owned()));
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.set(Value::Null);
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.set(Value::Null);
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.set(Value::Null);
        Ok(())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.scalar(json().serialize_newtype_variant(name, index, variant, value))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSlot<'a>, Error> {
        if !self.slot.is_array() {
            *self.slot = Value::Array(Vec::with_capacity(len.unwrap_or(0)));
        }
        *self.held = self.held.saturating_add(NODE_BYTES);
        Ok(SeqSlot {
            slot: self.slot,
            held: self.held,
            written: 0,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<SeqSlot<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqSlot<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        let state = json().serialize_tuple_variant(name, index, variant, len)?;
        Ok(Built { slot: self, state })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<MapSlot<'a>, Error> {
        let old = match self.slot {
            Value::Object(map) => std::mem::take(map),
            _ => Map::new(),
        };
        *self.held = self.held.saturating_add(NODE_BYTES);
        Ok(MapSlot {
            slot: self.slot,
            held: self.held,
            old,
            new: Map::new(),
            pending: None,
        })
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<StructSlot<'a>, Error> {
        if name.starts_with(SERDE_JSON_PRIVATE) {
            let state = json().serialize_struct(name, len)?;
            return Ok(StructSlot::Built(Built { slot: self, state }));
        }
        if len > FIELDS_TRACKED {
            return self.serialize_map(Some(len)).map(StructSlot::Map);
        }
        if !self.slot.is_object() {
            *self.slot = Value::Object(Map::new());
        }
        *self.held = self.held.saturating_add(NODE_BYTES);
        Ok(StructSlot::Fields(FieldSlot {
            slot: self.slot,
            held: self.held,
            written: [""; FIELDS_TRACKED],
            count: 0,
        }))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        let state = json().serialize_struct_variant(name, index, variant, len)?;
        Ok(Built { slot: self, state })
    }
}

/// A sequence written over an array: element `i` over the old element `i`.
pub(crate) struct SeqSlot<'a> {
    slot: &'a mut Value,
    held: &'a mut usize,
    written: usize,
}

impl SeqSlot<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let Value::Array(items) = self.slot else {
            unreachable!("a sequence slot always holds an array")
        };
        if self.written == items.len() {
            items.push(Value::Null);
        }
        let slot = &mut items[self.written];
        self.written += 1;
        value.serialize(Slot {
            slot,
            held: self.held,
        })
    }

    fn finish(self) -> Result<(), Error> {
        if let Value::Array(items) = self.slot {
            items.truncate(self.written);
        }
        Ok(())
    }
}

impl ser::SerializeSeq for SeqSlot<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTuple for SeqSlot<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for SeqSlot<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// A map written over an object: each entry written moves from the old map (its key and
/// value reused) to the new one, so the result holds exactly the entries written, last
/// write winning, as `serde_json::to_value` gives.
pub(crate) struct MapSlot<'a> {
    slot: &'a mut Value,
    held: &'a mut usize,
    old: Map<String, Value>,
    new: Map<String, Value>,
    /// The entry whose key was written and whose value comes next.
    pending: Option<Entry>,
}

impl MapSlot<'_> {
    /// Takes the entry for `key`: from the new map (a key written twice), from the old one,
    /// or a fresh one.
    pub(super) fn take_entry(&mut self, key: &str) -> Entry {
        self.new
            .remove_entry(key)
            .or_else(|| self.old.remove_entry(key))
            .unwrap_or_else(|| (key.to_owned(), Value::Null))
    }

    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        let entry = self.take_entry(key);
        self.write(entry, value)
    }

    /// Writes `value` over the entry's old value and puts the entry in the new map.
    fn write<T: Serialize + ?Sized>(
        &mut self,
        (key, mut slot): Entry,
        value: &T,
    ) -> Result<(), Error> {
        *self.held = self
            .held
            .saturating_add(NODE_BYTES.saturating_add(key.capacity()));
        value.serialize(Slot {
            slot: &mut slot,
            held: self.held,
        })?;
        let _replaced = self.new.insert(key, slot);
        Ok(())
    }

    fn finish(self) -> Result<(), Error> {
        *self.slot = Value::Object(self.new);
        Ok(())
    }
}

impl ser::SerializeMap for MapSlot<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let entry = key.serialize(key::KeyText(self))?;
        self.pending = Some(entry);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let Some(entry) = self.pending.take() else {
            return Err(ser::Error::custom("a map value was written before its key"));
        };
        self.write(entry, value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// A struct: written as a map (fields are keys), or by `serde_json` for its own values.
pub(crate) enum StructSlot<'a> {
    /// A struct of at most [`FIELDS_TRACKED`] fields: written in place.
    Fields(FieldSlot<'a>),
    /// A larger struct, written as a map.
    Map(MapSlot<'a>),
    /// A raw value or number `serde_json` builds itself.
    Built(Built<'a, JsonStruct>),
}

impl ser::SerializeStruct for StructSlot<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        match self {
            Self::Fields(fields) => fields.field(key, value),
            Self::Map(map) => map.entry(key, value),
            Self::Built(built) => {
                ser::SerializeStruct::serialize_field(&mut built.state, key, value)
            }
        }
    }

    fn end(self) -> Result<(), Error> {
        match self {
            Self::Fields(fields) => {
                fields.finish();
                Ok(())
            }
            Self::Map(map) => map.finish(),
            Self::Built(built) => {
                let value = ser::SerializeStruct::end(built.state)?;
                built.slot.set(value);
                Ok(())
            }
        }
    }
}

/// The most fields of a struct written in place (see [`FieldSlot`]); a struct with more is
/// written as a map.
const FIELDS_TRACKED: usize = 16;

/// A struct written over an object: a field whose key is there is written over its old value
/// in place (key and value reused); the entries no field wrote are removed at the end.
pub(crate) struct FieldSlot<'a> {
    slot: &'a mut Value,
    held: &'a mut usize,
    /// The keys written, in order.
    written: [&'static str; FIELDS_TRACKED],
    count: usize,
}

impl FieldSlot<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let Value::Object(map) = &mut *self.slot else {
            unreachable!("a field slot always holds an object")
        };
        *self.held = self
            .held
            .saturating_add(NODE_BYTES.saturating_add(key.len()));
        if let Some(slot) = map.get_mut(key) {
            // A key written twice (only a hand-written `Serialize` does that) counts once.
            if !self.written[..self.count].contains(&key) {
                track(&mut self.written, &mut self.count, key)?;
            }
            return value.serialize(Slot {
                slot,
                held: self.held,
            });
        }
        track(&mut self.written, &mut self.count, key)?;
        let mut slot = Value::Null;
        value.serialize(Slot {
            slot: &mut slot,
            held: self.held,
        })?;
        let _none = map.insert(key.to_owned(), slot);
        Ok(())
    }

    fn finish(self) {
        let Value::Object(map) = self.slot else {
            unreachable!("a field slot always holds an object")
        };
        if map.len() == self.count {
            // Every key in the map was written (`count` keys, all distinct): none is left over.
            return;
        }
        let written = &self.written[..self.count];
        map.retain(|key, _| written.contains(&key.as_str()));
    }
}

/// Records `key`, written for the first time, in a [`FieldSlot`]'s list. A struct writing
/// more fields than it announced (a hand-written `Serialize`) is refused, and [`to_value`]
/// leaves the whole value to `serde_json`.
fn track(
    written: &mut [&'static str; FIELDS_TRACKED],
    count: &mut usize,
    key: &'static str,
) -> Result<(), Error> {
    let Some(slot) = written.get_mut(*count) else {
        return Err(ser::Error::custom("more struct fields than announced"));
    };
    *slot = key;
    *count += 1;
    Ok(())
}

/// A compound value `serde_json`'s serializer builds; the result replaces the slot.
pub(crate) struct Built<'a, S> {
    slot: Slot<'a>,
    state: S,
}

impl ser::SerializeTupleVariant for Built<'_, JsonTupleVariant> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeTupleVariant::serialize_field(&mut self.state, value)
    }
    fn end(self) -> Result<(), Error> {
        let value = ser::SerializeTupleVariant::end(self.state)?;
        self.slot.set(value);
        Ok(())
    }
}

impl ser::SerializeStructVariant for Built<'_, JsonStructVariant> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStructVariant::serialize_field(&mut self.state, key, value)
    }
    fn end(self) -> Result<(), Error> {
        let value = ser::SerializeStructVariant::end(self.state)?;
        self.slot.set(value);
        Ok(())
    }
}

mod key;
mod over;

pub(crate) use over::{
    fields, one_item, put_string, write_into, write_over, write_scalar, write_scalars, write_str,
    Scalar,
};

#[cfg(test)]
mod tests;
