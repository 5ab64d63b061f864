//! A serde deserializer over a list query's multimap, so one struct both
//! documents a list's keys (`IntoParams`) and reads them. It visits the
//! struct's fields in their declared order, each with every value its key
//! was given: a `Vec` takes them all (`plate=A&plate=B`), anything else the
//! last. A key given empty never gets here ([`crate::extract::query_pairs`]
//! drops it, whatever its type), so it reads as absent; a key given spaces
//! only is first read as `""` (a number or a code refuses it) and then as
//! absent. Each refusal names
//! the key. A field `xxxEnd` with a sibling `xxxStart` is a
//! time range: a start after its end is refused on the start key.

use std::fmt;

use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;

use crate::edge::query::multimap::ListQuery;
use crate::edge::time::instant;
use crate::envelope::ApiError;

/// An enum value that reads as nothing known.
pub const INVALID: &str = "筛选条件的取值无效";
const NOT_A_FLAG: &str = "请输入 true 或 false";
const NOT_AN_INTEGER: &str = "请输入整数";
const START_AFTER_END: &str = "开始时间不允许大于结束时间";

/// Why a query was refused: the key (once known) and the user's text.
#[derive(Debug)]
pub struct QueryError {
    key: Option<String>,
    message: String,
}

impl QueryError {
    fn refused(message: impl Into<String>) -> QueryError {
        QueryError {
            key: None,
            message: message.into(),
        }
    }

    fn at(mut self, key: &str) -> QueryError {
        self.key.get_or_insert_with(|| key.to_owned());
        self
    }

    pub fn into_api(self) -> ApiError {
        ApiError::invalid(self.key.as_deref().unwrap_or("query"), self.message)
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QueryError {}

impl de::Error for QueryError {
    /// Field readers (`deserialize_with`) refuse with the user's text.
    fn custom<T: fmt::Display>(msg: T) -> Self {
        QueryError::refused(msg.to_string())
    }

    fn invalid_type(_: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        QueryError::refused(INVALID)
    }

    fn invalid_value(_: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        QueryError::refused(INVALID)
    }

    fn unknown_variant(_: &str, _: &'static [&'static str]) -> Self {
        QueryError::refused(INVALID)
    }
}

/// Reads `T` (a struct of named fields) from the query.
pub fn from_query<T: de::DeserializeOwned>(query: &ListQuery) -> Result<T, ApiError> {
    // A key given spaces only must read as its type reads "" (text does, a
    // number or a code does not); then it is no filter.
    if let Some(probe) = query.blanks_as_empty() {
        T::deserialize(Struct { query: &probe }).map_err(QueryError::into_api)?;
    }
    T::deserialize(Struct { query }).map_err(QueryError::into_api)
}

struct Struct<'a> {
    query: &'a ListQuery,
}

impl<'de> de::Deserializer<'de> for Struct<'_> {
    type Error = QueryError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, QueryError> {
        Err(QueryError::refused("查询参数格式有误"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, QueryError> {
        visitor.visit_map(Fields {
            query: self.query,
            fields,
            next: 0,
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// Every declared field in order, present or not (an absent `Vec` is empty,
/// an absent `Option` none).
struct Fields<'a> {
    query: &'a ListQuery,
    fields: &'static [&'static str],
    next: usize,
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = QueryError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, QueryError> {
        let Some(key) = self.fields.get(self.next) else {
            return Ok(None);
        };
        let key: StrDeserializer<'_, QueryError> = key.into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, QueryError> {
        let key = self.fields[self.next];
        self.next += 1;
        let value = seed
            .deserialize(Value {
                values: self.query.values_of(key),
            })
            .map_err(|e| e.at(key))?;
        self.check_range(key)?;
        Ok(value)
    }
}

impl Fields<'_> {
    /// Refuses `xxxStart` after `xxxEnd` once both have been read.
    fn check_range(&self, key: &str) -> Result<(), QueryError> {
        let Some(prefix) = key.strip_suffix("End") else {
            return Ok(());
        };
        let start_key = format!("{prefix}Start");
        if !self.fields.contains(&start_key.as_str()) {
            return Ok(());
        }
        let last = |k: &str| self.query.values_of(k).last().map(String::as_str);
        let start = last(&start_key).and_then(|v| instant(v, false));
        let end = last(key).and_then(|v| instant(v, true));
        match (start, end) {
            (Some(s), Some(e)) if s > e => Err(QueryError::refused(START_AFTER_END).at(&start_key)),
            _ => Ok(()),
        }
    }
}

/// One key's values, in order (none when absent).
struct Value<'a> {
    values: &'a [String],
}

impl Value<'_> {
    /// The value a single typed field reads: the last one.
    fn last(&self) -> Option<&str> {
        self.values.last().map(String::as_str)
    }
}

impl<'de> de::Deserializer<'de> for Value<'_> {
    type Error = QueryError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_str(self.values.last().map_or("", String::as_str))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        if self.values.is_empty() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_bool(self.last().map(flag).transpose()?.unwrap_or(false))
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        match self.last() {
            Some(v) => visitor.visit_i32(integer(v)?),
            None => Err(QueryError::refused(INVALID)),
        }
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        match self.last() {
            Some(v) => visitor.visit_i64(integer(v)?),
            None => Err(QueryError::refused(INVALID)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, QueryError> {
        match self.last() {
            Some(v) => visitor.visit_enum(v.into_deserializer()),
            None => Err(QueryError::refused(INVALID)),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_seq(Items {
            values: self.values.iter(),
        })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, QueryError> {
        visitor.visit_newtype_struct(self)
    }

    forward_to_deserialize_any! {
        i8 i16 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit unit_struct
        tuple tuple_struct map struct identifier ignored_any
    }
}

fn flag(value: &str) -> Result<bool, QueryError> {
    match value {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(QueryError::refused(NOT_A_FLAG)),
    }
}

fn integer<N: std::str::FromStr>(value: &str) -> Result<N, QueryError> {
    value
        .parse()
        .map_err(|_| QueryError::refused(NOT_AN_INTEGER))
}

/// The values of a list-valued key.
struct Items<'a> {
    values: std::slice::Iter<'a, String>,
}

impl<'de> SeqAccess<'de> for Items<'_> {
    type Error = QueryError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, QueryError> {
        self.values
            .next()
            .map(|value| seed.deserialize(Item(value)))
            .transpose()
    }
}

/// One item of a list.
struct Item<'a>(&'a String);

impl<'de> de::Deserializer<'de> for Item<'_> {
    type Error = QueryError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_str(self.0)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_bool(flag(self.0)?)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_i32(integer(self.0)?)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, QueryError> {
        visitor.visit_enum(self.0.as_str().into_deserializer())
    }

    forward_to_deserialize_any! {
        i8 i16 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct
        map struct identifier ignored_any
    }
}
