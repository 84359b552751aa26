//! Map keys for [`super::to_value`]: a string key is looked up in the map being written
//! without being copied first.

use serde::ser::{self, Serialize};
use serde_json::Error;

use super::{Entry, MapSlot};

/// Writes a map key: a string key takes its entry from the map (see
/// [`MapSlot::take_entry`]). Any other key is refused, and [`super::to_value`] then leaves the whole
/// value to `serde_json` (which turns numbers and booleans into keys its own way).
pub(super) struct KeyText<'m, 'a>(pub(super) &'m mut MapSlot<'a>);

/// Refuses a key that is not a string.
fn not_a_string_key() -> Error {
    ser::Error::custom("the map key is not a string")
}

macro_rules! refuse_keys {
    ($($method:ident($type:ty)),* $(,)?) => {
        $(
            fn $method(self, _value: $type) -> Result<Entry, Error> {
                Err(not_a_string_key())
            }
        )*
    };
}

impl ser::Serializer for KeyText<'_, '_> {
    type Ok = Entry;
    type Error = Error;
    type SerializeSeq = ser::Impossible<Entry, Error>;
    type SerializeTuple = ser::Impossible<Entry, Error>;
    type SerializeTupleStruct = ser::Impossible<Entry, Error>;
    type SerializeTupleVariant = ser::Impossible<Entry, Error>;
    type SerializeMap = ser::Impossible<Entry, Error>;
    type SerializeStruct = ser::Impossible<Entry, Error>;
    type SerializeStructVariant = ser::Impossible<Entry, Error>;

    refuse_keys! {
        serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_i128(i128), serialize_u8(u8), serialize_u16(u16),
        serialize_u32(u32), serialize_u64(u64), serialize_u128(u128), serialize_f32(f32),
        serialize_f64(f64), serialize_char(char), serialize_bytes(&[u8]),
    }

    fn serialize_str(self, value: &str) -> Result<Entry, Error> {
        Ok(self.0.take_entry(value))
    }
    fn serialize_none(self) -> Result<Entry, Error> {
        Err(not_a_string_key())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<Entry, Error> {
        Err(not_a_string_key())
    }
    fn serialize_unit(self) -> Result<Entry, Error> {
        Err(not_a_string_key())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Entry, Error> {
        Err(not_a_string_key())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
    ) -> Result<Entry, Error> {
        Err(not_a_string_key())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result<Entry, Error> {
        Err(not_a_string_key())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<Entry, Error> {
        Err(not_a_string_key())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_a_string_key())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_a_string_key())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_a_string_key())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_a_string_key())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(not_a_string_key())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(not_a_string_key())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_a_string_key())
    }
}
