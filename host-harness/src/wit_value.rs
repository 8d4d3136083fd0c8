//! The component's side of the contract, which knows no type but the component's own. An
//! argument ([`Arg`]) is lowered from its serde form straight into a WIT value, and a result
//! ([`Returned`]) is read straight back into a core type. Both go by the JSON form of
//! [`crate::calls`], with no JSON tree in between. A WIT value is turned into that JSON for the
//! call scripts.

use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, ser};
use serde_json::{Value, json};
use wasmtime::component::{Type, Val};

/// One argument of a call: any value whose serde form is its WIT JSON form. The native table
/// reads it as JSON; the component lowers it straight into a WIT value of the parameter's type,
/// with no JSON tree in between.
#[derive(Clone, Copy)]
pub struct Arg<'a>(&'a dyn Lower);

impl<'a> Arg<'a> {
    /// `value` as an argument.
    pub fn new<T: Serialize>(value: &'a T) -> Self {
        Arg(value)
    }

    /// The argument in the JSON form. (JSON has no NaN or infinity: serde_json writes them as
    /// null, so the model adapters refuse them before they become arguments.)
    pub fn json(&self) -> Result<Value, String> {
        self.0.json()
    }

    /// Every argument of a call in the JSON form; one that JSON cannot hold breaks the contract.
    pub fn all_json(args: &[Arg<'_>]) -> Result<Vec<Value>, crate::error::Error> {
        args.iter().map(Arg::json).collect::<Result<_, _>>().map_err(crate::error::Error::Contract)
    }

    /// The argument as a WIT value of the shape `shape`.
    pub(crate) fn wit(&self, shape: &Shape) -> Result<Val, String> {
        self.0.wit(shape)
    }
}

/// What an [`Arg`] can be turned into.
trait Lower {
    fn json(&self) -> Result<Value, String>;
    fn wit(&self, shape: &Shape) -> Result<Val, String>;
}

impl<T: Serialize> Lower for T {
    fn json(&self) -> Result<Value, String> {
        serde_json::to_value(self).map_err(|e| e.to_string())
    }

    fn wit(&self, shape: &Shape) -> Result<Val, String> {
        self.serialize(Lowering(shape)).map_err(|e| e.0)
    }
}

/// A WIT type as lowering walks it. Built once per export: wasmtime makes a `Type` afresh each
/// time a record's fields are listed, which cost more than the values themselves.
#[derive(Debug, Clone)]
pub(crate) enum Shape {
    /// A bool, number, char or string.
    Scalar(Type),
    Enum(Vec<String>),
    List(Box<Shape>),
    Tuple(Vec<Shape>),
    Record(Vec<(String, Shape)>),
    Option(Box<Shape>),
    Variant(Vec<(String, Option<Shape>)>),
    Result(Option<Box<Shape>>, Option<Box<Shape>>),
}

impl Shape {
    /// The shape of `ty`; kinds outside memdir's contract (resources, flags) are refused.
    pub(crate) fn of(ty: &Type) -> Result<Shape, String> {
        Ok(match ty {
            Type::Enum(cases) => Shape::Enum(cases.names().map(str::to_string).collect()),
            Type::List(list) => Shape::List(Box::new(Shape::of(&list.ty())?)),
            Type::Tuple(tuple) => {
                Shape::Tuple(tuple.types().map(|t| Shape::of(&t)).collect::<Result<_, _>>()?)
            }
            Type::Record(record) => Shape::Record(
                record
                    .fields()
                    .map(|f| Ok((f.name.to_string(), Shape::of(&f.ty)?)))
                    .collect::<Result<_, String>>()?,
            ),
            Type::Option(option) => Shape::Option(Box::new(Shape::of(&option.ty())?)),
            Type::Variant(variant) => Shape::Variant(
                variant
                    .cases()
                    .map(|c| Ok((c.name.to_string(), c.ty.as_ref().map(Shape::of).transpose()?)))
                    .collect::<Result<_, String>>()?,
            ),
            Type::Result(result) => Shape::Result(
                result.ok().as_ref().map(Shape::of).transpose()?.map(Box::new),
                result.err().as_ref().map(Shape::of).transpose()?.map(Box::new),
            ),
            Type::Bool
            | Type::S8
            | Type::U8
            | Type::S16
            | Type::U16
            | Type::S32
            | Type::U32
            | Type::S64
            | Type::U64
            | Type::Float32
            | Type::Float64
            | Type::Char
            | Type::String => Shape::Scalar(ty.clone()),
            other => return Err(format!("{} values are not part of memdir's contract", type_name(other))),
        })
    }

    fn name(&self) -> &'static str {
        match self {
            Shape::Scalar(ty) => type_name(ty),
            Shape::Enum(_) => "enum",
            Shape::List(_) => "list",
            Shape::Tuple(_) => "tuple",
            Shape::Record(_) => "record",
            Shape::Option(_) => "option",
            Shape::Variant(_) => "variant",
            Shape::Result(..) => "result",
        }
    }
}

/// A serde serializer that makes a WIT value of one shape from a value's JSON form: a record
/// from a struct or map, an enum from a case name, a variant or `result` from `{"tag", "val"}`,
/// an option from the value or null.
struct Lowering<'s>(&'s Shape);

impl<'s> Lowering<'s> {
    /// Lowers a value given as itself where the WIT has an option of it (JSON writes `some(x)`
    /// as `x`).
    fn scalar(self, lower: impl FnOnce(&Lowering<'s>) -> Result<Val, CodecError>) -> Result<Val, CodecError> {
        match self.0 {
            Shape::Option(inner) => Ok(Val::Option(Some(Box::new(lower(&Lowering(inner))?)))),
            _ => lower(&self),
        }
    }

    /// The shape a compound value is built as, and whether it is wrapped in `some`.
    fn unwrapped(self) -> (&'s Shape, bool) {
        match self.0 {
            Shape::Option(inner) => (inner, true),
            shape => (shape, false),
        }
    }

    fn refuse<T>(&self, what: impl std::fmt::Display) -> Result<T, CodecError> {
        Err(CodecError(format!("{what} is not a {}", self.0.name())))
    }

    fn int(&self, n: i128) -> Result<Val, CodecError> {
        let out_of_range = || CodecError(format!("{n} is out of range for a {}", self.0.name()));
        let Shape::Scalar(ty) = self.0 else { return self.refuse(n) };
        Ok(match ty {
            Type::S8 => Val::S8(n.try_into().map_err(|_| out_of_range())?),
            Type::U8 => Val::U8(n.try_into().map_err(|_| out_of_range())?),
            Type::S16 => Val::S16(n.try_into().map_err(|_| out_of_range())?),
            Type::U16 => Val::U16(n.try_into().map_err(|_| out_of_range())?),
            Type::S32 => Val::S32(n.try_into().map_err(|_| out_of_range())?),
            Type::U32 => Val::U32(n.try_into().map_err(|_| out_of_range())?),
            Type::S64 => Val::S64(n.try_into().map_err(|_| out_of_range())?),
            Type::U64 => Val::U64(n.try_into().map_err(|_| out_of_range())?),
            Type::Float32 => Val::Float32(n as f32),
            Type::Float64 => Val::Float64(n as f64),
            _ => return self.refuse(n),
        })
    }

    /// A record, variant or `result` built field by field.
    fn fields(self) -> Result<Fielded<'s>, CodecError> {
        match self.unwrapped() {
            (shape @ Shape::Record(fields), optional) => {
                let slots = std::iter::repeat_with(|| None).take(fields.len()).collect();
                Ok(Fielded { shape, optional, slots, key: None, tag: None, payload: None })
            }
            (shape @ (Shape::Variant(_) | Shape::Result(..)), optional) => {
                Ok(Fielded { shape, optional, slots: Vec::new(), key: None, tag: None, payload: None })
            }
            (shape, _) => Lowering(shape).refuse("a map"),
        }
    }
}

/// The serializer's methods for integers, each lowered to the WIT integer type in hand.
macro_rules! integers {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<Val, CodecError> {
            self.scalar(|l| l.int(v.into()))
        })*
    };
}

impl<'s> ser::Serializer for Lowering<'s> {
    type Ok = Val;
    type Error = CodecError;
    type SerializeSeq = Listed<'s>;
    type SerializeTuple = Listed<'s>;
    type SerializeTupleStruct = ser::Impossible<Val, CodecError>;
    type SerializeTupleVariant = ser::Impossible<Val, CodecError>;
    type SerializeMap = Fielded<'s>;
    type SerializeStruct = Fielded<'s>;
    type SerializeStructVariant = ser::Impossible<Val, CodecError>;

    fn serialize_bool(self, v: bool) -> Result<Val, CodecError> {
        self.scalar(|l| match l.0 {
            Shape::Scalar(Type::Bool) => Ok(Val::Bool(v)),
            _ => l.refuse(v),
        })
    }
    integers! {
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64
    }
    fn serialize_f32(self, v: f32) -> Result<Val, CodecError> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<Val, CodecError> {
        self.scalar(|l| match l.0 {
            Shape::Scalar(Type::Float32) => Ok(Val::Float32(v as f32)),
            Shape::Scalar(Type::Float64) => Ok(Val::Float64(v)),
            _ => l.refuse(v),
        })
    }
    fn serialize_char(self, v: char) -> Result<Val, CodecError> {
        self.scalar(|l| match l.0 {
            Shape::Scalar(Type::Char) => Ok(Val::Char(v)),
            _ => Lowering(l.0).serialize_str(v.encode_utf8(&mut [0; 4])),
        })
    }
    fn serialize_str(self, v: &str) -> Result<Val, CodecError> {
        self.scalar(|l| match l.0 {
            Shape::Scalar(Type::String) => Ok(Val::String(v.to_string())),
            // JSON has no char: one is a string of exactly one.
            Shape::Scalar(Type::Char) if v.chars().count() == 1 => {
                Ok(Val::Char(v.chars().next().unwrap_or_default()))
            }
            Shape::Enum(cases) if cases.iter().any(|c| c == v) => Ok(Val::Enum(v.to_string())),
            _ => l.refuse(format_args!("{v:?}")),
        })
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Val, CodecError> {
        self.refuse("bytes")
    }
    fn serialize_none(self) -> Result<Val, CodecError> {
        match self.0 {
            Shape::Option(_) => Ok(Val::Option(None)),
            _ => self.refuse("null"),
        }
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Val, CodecError> {
        match self.0 {
            Shape::Option(inner) => Ok(Val::Option(Some(Box::new(value.serialize(Lowering(inner))?)))),
            _ => value.serialize(self),
        }
    }
    fn serialize_unit(self) -> Result<Val, CodecError> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Val, CodecError> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, case: &'static str) -> Result<Val, CodecError> {
        self.scalar(|l| match l.0 {
            Shape::Variant(cases) if cases.iter().any(|(c, payload)| c == case && payload.is_none()) => {
                Ok(Val::Variant(case.to_string(), None))
            }
            Shape::Enum(cases) if cases.iter().any(|c| c == case) => Ok(Val::Enum(case.to_string())),
            _ => l.refuse(format_args!("{case:?}")),
        })
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Val, CodecError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        case: &'static str,
        _: &T,
    ) -> Result<Val, CodecError> {
        self.refuse(format_args!("an externally tagged {case:?}"))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Listed<'s>, CodecError> {
        let items = Vec::with_capacity(len.unwrap_or(0));
        match self.unwrapped() {
            (Shape::List(item), optional) => Ok(Listed { item: Some(item), tuple: &[], items, optional }),
            (Shape::Tuple(types), optional) => Ok(Listed { item: None, tuple: types, items, optional }),
            (shape, _) => Lowering(shape).refuse("a list"),
        }
    }
    fn serialize_tuple(self, len: usize) -> Result<Listed<'s>, CodecError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, CodecError> {
        self.refuse("a tuple struct")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, CodecError> {
        self.refuse("a tuple variant")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Fielded<'s>, CodecError> {
        self.fields()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fielded<'s>, CodecError> {
        self.fields()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, CodecError> {
        self.refuse("a struct variant")
    }
}

/// A list's or a tuple's items, each lowered to its own shape.
struct Listed<'s> {
    /// A list's item shape; none for a tuple.
    item: Option<&'s Shape>,
    /// A tuple's item shapes.
    tuple: &'s [Shape],
    items: Vec<Val>,
    /// The WIT type is an option of the list: wrap it in `some`.
    optional: bool,
}

impl Listed<'_> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CodecError> {
        let shape = match self.item {
            Some(shape) => shape,
            None => self
                .tuple
                .get(self.items.len())
                .ok_or_else(|| CodecError(format!("a tuple of {} takes no more items", self.tuple.len())))?,
        };
        self.items.push(value.serialize(Lowering(shape))?);
        Ok(())
    }

    fn done(self) -> Result<Val, CodecError> {
        let value = match self.item {
            Some(_) => Val::List(self.items),
            None if self.tuple.len() != self.items.len() => {
                return Err(CodecError(format!(
                    "a tuple of {} has {} items",
                    self.tuple.len(),
                    self.items.len()
                )));
            }
            None => Val::Tuple(self.items),
        };
        Ok(if self.optional { Val::Option(Some(Box::new(value))) } else { value })
    }
}

/// A list and a tuple are serialized alike.
macro_rules! listed {
    ($($serialize:ident),*) => {
        $(impl ser::$serialize for Listed<'_> {
            type Ok = Val;
            type Error = CodecError;
            fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CodecError> {
                self.push(value)
            }
            fn end(self) -> Result<Val, CodecError> {
                self.done()
            }
        })*
    };
}

listed!(SerializeSeq, SerializeTuple);

/// A record's fields, or a variant's `tag` and `val`, as they arrive; a record's are put in the
/// WIT's order at the end. A field the WIT does not have is ignored, a missing option is none.
struct Fielded<'s> {
    shape: &'s Shape,
    /// The WIT type is an option of the record: wrap it in `some`.
    optional: bool,
    /// A record's fields, by their place in the WIT.
    slots: Vec<Option<Val>>,
    key: Option<String>,
    tag: Option<String>,
    payload: Option<Val>,
}

impl Fielded<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), CodecError> {
        match self.shape {
            Shape::Record(fields) => {
                if let Some(i) = fields.iter().position(|(name, _)| name == key) {
                    let lowered = value
                        .serialize(Lowering(&fields[i].1))
                        .map_err(|e| CodecError(format!("{key}: {}", e.0)))?;
                    self.slots[i] = Some(lowered);
                }
            }
            _ if key == "tag" => self.tag = Some(name_of(value)?),
            _ if key == "val" => {
                let tag = self.tag.as_deref().ok_or_else(|| CodecError("\"val\" before \"tag\"".into()))?;
                let shape =
                    self.case(tag)?.ok_or_else(|| CodecError(format!("the case {tag:?} has no payload")))?;
                self.payload = Some(value.serialize(Lowering(shape))?);
            }
            _ => {}
        }
        Ok(())
    }

    /// The payload shape of case `tag`; an unknown case is an error.
    fn case(&self, tag: &str) -> Result<Option<&Shape>, CodecError> {
        match self.shape {
            Shape::Variant(cases) => cases
                .iter()
                .find(|(name, _)| name == tag)
                .map(|(_, payload)| payload.as_ref())
                .ok_or_else(|| CodecError(format!("{tag:?} is not a case"))),
            Shape::Result(ok, err) => match tag {
                "ok" => Ok(ok.as_deref()),
                "err" => Ok(err.as_deref()),
                _ => Err(CodecError(format!("{tag:?} is neither ok nor err"))),
            },
            _ => Ok(None),
        }
    }

    fn done(self) -> Result<Val, CodecError> {
        let value = match self.shape {
            Shape::Record(fields) => {
                let mut out = Vec::with_capacity(fields.len());
                for ((name, shape), slot) in fields.iter().zip(self.slots) {
                    let value = match (slot, shape) {
                        (Some(value), _) => value,
                        (None, Shape::Option(_)) => Val::Option(None),
                        (None, _) => return Err(CodecError(format!("{name}: missing"))),
                    };
                    out.push((name.clone(), value));
                }
                Val::Record(out)
            }
            shape => {
                let tag =
                    self.tag.as_deref().ok_or_else(|| CodecError("a variant without its \"tag\"".into()))?;
                // Checked here, not left to wasmtime: what it refuses would be a trap, and cost
                // the instance.
                match (self.case(tag)?, &self.payload) {
                    (Some(_), None) => return Err(CodecError(format!("the case {tag:?} needs its \"val\""))),
                    (None, Some(_)) => return Err(CodecError(format!("the case {tag:?} has no payload"))),
                    _ => {}
                }
                let payload = self.payload.map(Box::new);
                match shape {
                    Shape::Result(..) if tag == "ok" => Val::Result(Ok(payload)),
                    Shape::Result(..) => Val::Result(Err(payload)),
                    _ => Val::Variant(tag.to_string(), payload),
                }
            }
        };
        Ok(if self.optional { Val::Option(Some(Box::new(value))) } else { value })
    }
}

impl ser::SerializeStruct for Fielded<'_> {
    type Ok = Val;
    type Error = CodecError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), CodecError> {
        self.field(key, value)
    }
    fn end(self) -> Result<Val, CodecError> {
        self.done()
    }
}

impl ser::SerializeMap for Fielded<'_> {
    type Ok = Val;
    type Error = CodecError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), CodecError> {
        self.key = Some(name_of(key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CodecError> {
        let key = self.key.take().ok_or_else(|| CodecError("a value without its key".into()))?;
        self.field(&key, value)
    }
    fn end(self) -> Result<Val, CodecError> {
        self.done()
    }
}

/// A map key or a variant's tag, which serialize as strings.
fn name_of<T: Serialize + ?Sized>(value: &T) -> Result<String, CodecError> {
    match value.serialize(serde_json::value::Serializer) {
        Ok(Value::String(name)) => Ok(name),
        Ok(other) => Err(CodecError(format!("{other} is not a name"))),
        Err(e) => Err(CodecError(e.to_string())),
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
        Type::Float32 | Type::Float64 => "number",
        Type::Char => "char",
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

/// A failure to lower a value to a WIT value, or to read one as a core type.
#[derive(Debug)]
struct CodecError(String);

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CodecError {}

impl de::Error for CodecError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        CodecError(msg.to_string())
    }
}

impl ser::Error for CodecError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        CodecError(msg.to_string())
    }
}

/// A WIT value as a serde deserializer that reads it as its JSON form would be read: a record
/// as a map, an enum as its case name, a variant or `result` as `{"tag", "val"}`.
struct WitValue(Val);

impl<'de> Deserializer<'de> for WitValue {
    type Error = CodecError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CodecError> {
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
            other => Err(CodecError(format!("{other:?} is not part of memdir's contract"))),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CodecError> {
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
    ) -> Result<V::Value, CodecError> {
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
    ) -> Result<V::Value, CodecError> {
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
) -> Result<V::Value, CodecError> {
    let mut fields = vec![("tag".to_string(), Val::String(tag))];
    if let Some(payload) = payload {
        fields.push(("val".to_string(), *payload));
    }
    visitor.visit_map(Fields { fields: fields.into_iter(), value: None })
}

struct Items(std::vec::IntoIter<Val>);

impl<'de> SeqAccess<'de> for Items {
    type Error = CodecError;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, CodecError> {
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
    type Error = CodecError;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, CodecError> {
        match self.fields.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(key.into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, CodecError> {
        let value = self.value.take().ok_or_else(|| CodecError("a value without its key".into()))?;
        seed.deserialize(WitValue(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}

#[cfg(test)]
mod tests {
    //! The codec on its own (issue 45): every WIT shape memdir's contract uses goes from its JSON
    //! form to a WIT value and back unchanged, typed values come back as themselves, and values
    //! that do not fit their shape are errors that say where, never a panic or a guess.

    use super::*;
    use serde::Deserialize;

    fn scalar(ty: Type) -> Shape {
        Shape::Scalar(ty)
    }

    fn lower(value: &Value, shape: &Shape) -> Result<Val, String> {
        Arg::new(value).wit(shape)
    }

    fn shapes() -> Vec<(Shape, Value)> {
        let record = Shape::Record(vec![
            ("name".into(), scalar(Type::String)),
            ("size".into(), Shape::Option(Box::new(scalar(Type::U64)))),
            ("tags".into(), Shape::List(Box::new(scalar(Type::String)))),
        ]);
        let variant =
            Shape::Variant(vec![("text".into(), Some(scalar(Type::String))), ("none".into(), None)]);
        let result =
            |ok: Option<Shape>, err: Option<Shape>| Shape::Result(ok.map(Box::new), err.map(Box::new));
        vec![
            (scalar(Type::Bool), json!(true)),
            (scalar(Type::U8), json!(255)),
            (scalar(Type::S8), json!(-128)),
            (scalar(Type::U16), json!(65535)),
            (scalar(Type::S16), json!(-32768)),
            (scalar(Type::U32), json!(4_000_000_000u32)),
            (scalar(Type::S32), json!(-2_000_000_000)),
            (scalar(Type::U64), json!(u64::MAX)),
            (scalar(Type::S64), json!(i64::MIN)),
            (scalar(Type::Float32), json!(1.5)),
            (scalar(Type::Float64), json!(-0.25)),
            (scalar(Type::Char), json!("é")),
            (scalar(Type::String), json!("a \"string\"\nwith lines — and ünïcode")),
            (Shape::Enum(vec!["private".into(), "team".into()]), json!("team")),
            (Shape::List(Box::new(scalar(Type::U32))), json!([1, 2, 3])),
            (Shape::List(Box::new(scalar(Type::String))), json!([])),
            (Shape::Tuple(vec![scalar(Type::String), scalar(Type::String)]), json!(["HOME", "/home/u"])),
            (record, json!({"name": "deploy", "size": null, "tags": ["a", "b"]})),
            (Shape::Option(Box::new(scalar(Type::String))), json!(null)),
            (Shape::Option(Box::new(scalar(Type::String))), json!("given")),
            (variant.clone(), json!({"tag": "text", "val": "hello"})),
            (variant, json!({"tag": "none"})),
            (result(Some(scalar(Type::U32)), Some(scalar(Type::String))), json!({"tag": "ok", "val": 7})),
            (result(Some(scalar(Type::U32)), Some(scalar(Type::String))), json!({"tag": "err", "val": "no"})),
            (result(None, Some(scalar(Type::String))), json!({"tag": "ok"})),
            (result(Some(scalar(Type::Bool)), None), json!({"tag": "err"})),
        ]
    }

    #[test]
    fn every_shape_round_trips_through_its_json_form() {
        for (shape, value) in shapes() {
            let val = lower(&value, &shape).unwrap_or_else(|e| panic!("{} {value}: {e}", shape.name()));
            assert_eq!(from_val(&val), value, "{}", shape.name());
            // Read back without a JSON tree in between, as the component's results are.
            let decoded: Value = Returned::wit(val).decode().unwrap();
            assert_eq!(decoded, value, "{} decoded", shape.name());
        }
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    struct Header {
        file_name: String,
        mtime_ms: i64,
        kind: Kind,
        note: Option<String>,
        step: Step,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Kind {
        Dir,
        File,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
    enum Step {
        Ask(String),
        Done,
    }

    #[test]
    fn a_core_type_comes_back_as_itself() {
        let shape = Shape::Record(vec![
            ("file-name".into(), scalar(Type::String)),
            ("mtime-ms".into(), scalar(Type::S64)),
            ("kind".into(), Shape::Enum(vec!["dir".into(), "file".into()])),
            ("note".into(), Shape::Option(Box::new(scalar(Type::String)))),
            (
                "step".into(),
                Shape::Variant(vec![("ask".into(), Some(scalar(Type::String))), ("done".into(), None)]),
            ),
        ]);
        for header in [
            Header { file_name: "a.md".into(), mtime_ms: -5, kind: Kind::File, note: None, step: Step::Done },
            Header {
                file_name: "b".into(),
                mtime_ms: 1 << 40,
                kind: Kind::Dir,
                note: Some("n".into()),
                step: Step::Ask("q".into()),
            },
        ] {
            let val = Arg::new(&header).wit(&shape).unwrap();
            assert_eq!(Returned::wit(val).decode::<Header>().unwrap(), header);
        }
    }

    #[test]
    fn values_that_do_not_fit_their_shape_are_errors() {
        let enum_shape = Shape::Enum(vec!["private".into(), "team".into()]);
        let record = Shape::Record(vec![("name".into(), scalar(Type::String))]);
        let variant = Shape::Variant(vec![("text".into(), Some(scalar(Type::String)))]);
        let bad: Vec<(Shape, Value)> = vec![
            (scalar(Type::U32), json!("7")),
            (scalar(Type::U32), json!(-1)),
            (scalar(Type::U8), json!(256)),
            (scalar(Type::S8), json!(200)),
            (scalar(Type::U64), json!(1.5)),
            (scalar(Type::Bool), json!(1)),
            (scalar(Type::String), json!(null)),
            (scalar(Type::Char), json!("two")),
            (enum_shape, json!("public")),
            (record.clone(), json!({})),
            (record, json!(["name"])),
            (variant.clone(), json!({"tag": "image", "val": "x"})),
            (variant, json!("text")),
            (Shape::Tuple(vec![scalar(Type::String), scalar(Type::String)]), json!(["one"])),
            (Shape::List(Box::new(scalar(Type::U32))), json!({"0": 1})),
        ];
        for (shape, value) in bad {
            let name = shape.name();
            match lower(&value, &shape) {
                Err(e) => assert!(!e.is_empty(), "{name} {value}: an empty message"),
                Ok(val) => panic!("{name} {value} was lowered to {val:?}"),
            }
        }
    }

    #[test]
    fn a_wit_value_read_as_the_wrong_type_is_an_error() {
        let val = Val::Record(vec![("name".into(), Val::String("x".into()))]);
        let got = Returned::wit(val).decode::<Header>();
        assert!(got.is_err_and(|e| e.contains("file-name")), "a missing field is named");
        assert!(Returned::wit(Val::String("dir".into())).decode::<u32>().is_err());
        assert!(Returned::wit(Val::Enum("link".into())).decode::<Kind>().is_err());
    }
}
