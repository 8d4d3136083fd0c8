//! WIT values in the JSON form of [`crate::calls`], both ways, and read straight into the core's
//! types: the component's side of the contract, which knows no type but the component's own.

use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};
use wasmtime::component::{Type, Val};

/// A JSON value as a WIT value of type `ty`.
pub(crate) fn to_val(ty: &Type, v: Value) -> Result<Val, String> {
    let bad = |v: &Value| format!("{v} is not a {}", type_name(ty));
    let int = |v: &Value| v.as_i64().ok_or_else(|| bad(v));
    let uint = |v: &Value| v.as_u64().ok_or_else(|| bad(v));
    // Arguments are moved, not copied: a manifest's headers pass through here.
    Ok(match (ty, v) {
        (Type::Bool, Value::Bool(b)) => Val::Bool(b),
        (Type::S8, v) => Val::S8(i8::try_from(int(&v)?).map_err(|_| bad(&v))?),
        (Type::U8, v) => Val::U8(u8::try_from(uint(&v)?).map_err(|_| bad(&v))?),
        (Type::S16, v) => Val::S16(i16::try_from(int(&v)?).map_err(|_| bad(&v))?),
        (Type::U16, v) => Val::U16(u16::try_from(uint(&v)?).map_err(|_| bad(&v))?),
        (Type::S32, v) => Val::S32(i32::try_from(int(&v)?).map_err(|_| bad(&v))?),
        (Type::U32, v) => Val::U32(u32::try_from(uint(&v)?).map_err(|_| bad(&v))?),
        (Type::S64, v) => Val::S64(int(&v)?),
        (Type::U64, v) => Val::U64(uint(&v)?),
        (Type::Float32, v) => Val::Float32(v.as_f64().ok_or_else(|| bad(&v))? as f32),
        (Type::String, Value::String(s)) => Val::String(s),
        (Type::Enum(_), Value::String(s)) => Val::Enum(s),
        (Type::List(list), Value::Array(items)) => {
            let ty = list.ty();
            Val::List(items.into_iter().map(|x| to_val(&ty, x)).collect::<Result<_, _>>()?)
        }
        (Type::Tuple(tuple), Value::Array(items)) if items.len() == tuple.types().len() => {
            Val::Tuple(tuple.types().zip(items).map(|(t, x)| to_val(&t, x)).collect::<Result<_, _>>()?)
        }
        (Type::Record(record), Value::Object(mut fields)) => {
            let mut out = Vec::with_capacity(fields.len());
            for field in record.fields() {
                let value = fields.remove(field.name).unwrap_or(Value::Null);
                let value = to_val(&field.ty, value).map_err(|e| format!("{}: {e}", field.name))?;
                out.push((field.name.to_string(), value));
            }
            Val::Record(out)
        }
        (Type::Option(_), Value::Null) => Val::Option(None),
        (Type::Option(option), v) => Val::Option(Some(Box::new(to_val(&option.ty(), v)?))),
        (Type::Variant(variant), Value::Object(mut o)) => {
            let (tag, payload) = tag_and_payload(&mut o).ok_or_else(|| bad(&Value::Object(o.clone())))?;
            let case =
                variant.cases().find(|c| c.name == tag).ok_or_else(|| format!("{tag:?} is not a case"))?;
            let payload = case.ty.map(|t| to_val(&t, payload).map(Box::new)).transpose()?;
            Val::Variant(tag, payload)
        }
        (Type::Result(result), Value::Object(mut o)) => {
            let (tag, payload) = tag_and_payload(&mut o).ok_or_else(|| bad(&Value::Object(o.clone())))?;
            let lower = |t: Option<Type>| t.map(|t| to_val(&t, payload).map(Box::new)).transpose();
            match tag.as_str() {
                "ok" => Val::Result(Ok(lower(result.ok())?)),
                "err" => Val::Result(Err(lower(result.err())?)),
                _ => return Err(format!("{tag:?} is neither ok nor err")),
            }
        }
        (ty @ (Type::Bool | Type::String | Type::Enum(_) | Type::List(_) | Type::Tuple(_)), v)
        | (ty @ (Type::Record(_) | Type::Variant(_) | Type::Result(_)), v) => {
            return Err(format!("{v} is not a {}", type_name(ty)));
        }
        (other, _) => return Err(format!("{} values are not part of memdir's contract", type_name(other))),
    })
}

/// A variant's `{"tag": case, "val": payload}`, taken apart; `val` is null when absent.
fn tag_and_payload(o: &mut serde_json::Map<String, Value>) -> Option<(String, Value)> {
    match o.remove("tag")? {
        Value::String(tag) => Some((tag, o.remove("val").unwrap_or(Value::Null))),
        _ => None,
    }
}

/// A WIT value in the JSON form.
pub(crate) fn from_val(v: &Val) -> Value {
    let tagged = |tag: &str, payload: &Option<Box<Val>>| match payload {
        Some(p) => json!({"tag": tag, "val": from_val(p)}),
        None => json!({"tag": tag}),
    };
    match v {
        Val::Bool(b) => json!(b),
        Val::S8(n) => json!(n),
        Val::U8(n) => json!(n),
        Val::S16(n) => json!(n),
        Val::U16(n) => json!(n),
        Val::S32(n) => json!(n),
        Val::U32(n) => json!(n),
        Val::S64(n) => json!(n),
        Val::U64(n) => json!(n),
        Val::Float32(n) => json!(n),
        Val::Float64(n) => json!(n),
        Val::Char(c) => json!(c.to_string()),
        Val::String(s) => json!(s),
        Val::List(items) | Val::Tuple(items) => Value::Array(items.iter().map(from_val).collect()),
        Val::Record(fields) => Value::Object(fields.iter().map(|(k, v)| (k.clone(), from_val(v))).collect()),
        Val::Enum(case) => json!(case),
        Val::Variant(tag, payload) => tagged(tag, payload),
        Val::Option(None) => Value::Null,
        Val::Option(Some(v)) => from_val(v),
        Val::Result(Ok(payload)) => tagged("ok", payload),
        Val::Result(Err(payload)) => tagged("err", payload),
        other => json!(format!("{other:?}")),
    }
}

fn type_name(ty: &Type) -> &'static str {
    match ty {
        Type::Bool => "bool",
        Type::String => "string",
        Type::List(_) => "list",
        Type::Tuple(_) => "tuple",
        Type::Record(_) => "record",
        Type::Enum(_) => "enum",
        Type::Option(_) => "option",
        Type::Variant(_) => "variant",
        Type::Result(_) => "result",
        Type::S8 | Type::S16 | Type::S32 | Type::S64 => "signed integer",
        Type::U8 | Type::U16 | Type::U32 | Type::U64 => "unsigned integer",
        Type::Float32 => "number",
        _ => "value of another kind",
    }
}

/// What an export returned: JSON from the native table, or a WIT value from the component,
/// read into a core type without a JSON tree in between.
pub struct Returned(Form);

enum Form {
    Json(Value),
    Wit(Val),
}

impl Returned {
    /// A JSON value, as the native table returns it.
    pub fn json(value: Value) -> Self {
        Returned(Form::Json(value))
    }

    /// A WIT value, as the component returns it.
    pub(crate) fn wit(value: Val) -> Self {
        Returned(Form::Wit(value))
    }

    /// The value in the JSON form.
    pub fn into_json(self) -> Value {
        match self.0 {
            Form::Json(value) => value,
            Form::Wit(value) => from_val(&value),
        }
    }

    /// The value read as `T`, whose serde form is the JSON form.
    pub fn decode<T: DeserializeOwned>(self) -> Result<T, String> {
        match self.0 {
            Form::Json(value) => serde_json::from_value(value).map_err(|e| e.to_string()),
            Form::Wit(value) => T::deserialize(WitValue(value)).map_err(|e| e.0),
        }
    }
}

/// A failure to read a WIT value as a core type.
#[derive(Debug)]
struct DecodeError(String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodeError {}

impl de::Error for DecodeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        DecodeError(msg.to_string())
    }
}

/// A WIT value as a serde deserializer that reads it as its JSON form would be read: a record
/// as a map, an enum as its case name, a variant or `result` as `{"tag", "val"}`.
struct WitValue(Val);

impl<'de> Deserializer<'de> for WitValue {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Val::Bool(b) => visitor.visit_bool(b),
            Val::S8(n) => visitor.visit_i8(n),
            Val::U8(n) => visitor.visit_u8(n),
            Val::S16(n) => visitor.visit_i16(n),
            Val::U16(n) => visitor.visit_u16(n),
            Val::S32(n) => visitor.visit_i32(n),
            Val::U32(n) => visitor.visit_u32(n),
            Val::S64(n) => visitor.visit_i64(n),
            Val::U64(n) => visitor.visit_u64(n),
            Val::Float32(n) => visitor.visit_f32(n),
            Val::Float64(n) => visitor.visit_f64(n),
            Val::Char(c) => visitor.visit_char(c),
            Val::String(s) | Val::Enum(s) => visitor.visit_string(s),
            Val::List(items) | Val::Tuple(items) => visitor.visit_seq(Items(items.into_iter())),
            Val::Record(fields) => visitor.visit_map(Fields { fields: fields.into_iter(), value: None }),
            Val::Option(None) => visitor.visit_none(),
            Val::Option(Some(v)) => visitor.visit_some(WitValue(*v)),
            Val::Variant(tag, payload) => tagged(visitor, tag, payload),
            Val::Result(Ok(payload)) => tagged(visitor, "ok".into(), payload),
            Val::Result(Err(payload)) => tagged(visitor, "err".into(), payload),
            other => Err(DecodeError(format!("{other:?} is not part of memdir's contract"))),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Val::Option(None) => visitor.visit_none(),
            Val::Option(Some(v)) => visitor.visit_some(WitValue(*v)),
            other => visitor.visit_some(WitValue(other)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        match self.0 {
            Val::Enum(case) | Val::String(case) => visitor.visit_enum(case.into_deserializer()),
            other => WitValue(other).deserialize_any(visitor),
        }
    }

    /// A newtype (`WritePolicy(Vec<TypePolicy>)`) is its inner value, as in JSON.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// A variant case as `{"tag": case, "val": payload}`.
fn tagged<'de, V: Visitor<'de>>(
    visitor: V,
    tag: String,
    payload: Option<Box<Val>>,
) -> Result<V::Value, DecodeError> {
    let mut fields = vec![("tag".to_string(), Val::String(tag))];
    if let Some(payload) = payload {
        fields.push(("val".to_string(), *payload));
    }
    visitor.visit_map(Fields { fields: fields.into_iter(), value: None })
}

struct Items(std::vec::IntoIter<Val>);

impl<'de> SeqAccess<'de> for Items {
    type Error = DecodeError;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        self.0.next().map(|v| seed.deserialize(WitValue(v))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Fields {
    fields: std::vec::IntoIter<(String, Val)>,
    value: Option<Val>,
}

impl<'de> MapAccess<'de> for Fields {
    type Error = DecodeError;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        match self.fields.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(key.into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DecodeError> {
        let value = self.value.take().ok_or_else(|| DecodeError("a value without its key".into()))?;
        seed.deserialize(WitValue(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}
