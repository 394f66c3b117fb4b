//! A minimal MessagePack reader for the code-object metadata note.
//!
//! It reads the whole format (msgpack's spec: nil, booleans, integers,
//! floats, strings, binary, arrays, maps, extensions) into [`Value`]s,
//! checking every length against the bytes left, so malformed notes give
//! an error, never a panic or an outsized allocation.

/// One decoded MessagePack value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    Nil,
    Bool(bool),
    /// Every integer, signed or not.
    Int(i128),
    Float(f64),
    Str(String),
    Bin(Vec<u8>),
    Array(Vec<Value>),
    Map(Vec<(Value, Value)>),
    /// An extension type: its type code and data.
    Ext(i8, Vec<u8>),
}

impl Value {
    /// The value under string key `key`, if this is a map that has it.
    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn as_int(&self) -> Option<i128> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub(super) fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(super) fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// A short name of the value's type, for error messages.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bin(_) => "binary data",
            Value::Array(_) => "an array",
            Value::Map(_) => "a map",
            Value::Ext(..) => "an extension value",
        }
    }
}

/// The deepest nesting of arrays and maps read (the metadata nests 4 deep).
const MAX_DEPTH: u32 = 32;

/// Decodes the one value that `bytes` must hold exactly.
pub(super) fn decode(bytes: &[u8]) -> Result<Value, String> {
    let mut r = Reader { bytes, at: 0 };
    let v = r.value(0)?;
    if r.at != bytes.len() {
        return Err(format!(
            "{} bytes follow the metadata's MessagePack value at offset {}",
            bytes.len() - r.at,
            r.at
        ));
    }
    Ok(v)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(format!(
                "MessagePack value at offset {} needs {n} bytes; {} remain",
                self.at,
                self.bytes.len() - self.at
            ));
        };
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn be(&mut self, n: usize) -> Result<u64, String> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    fn len(&mut self, n: usize) -> Result<usize, String> {
        let v = self.be(n)?;
        usize::try_from(v).map_err(|_| format!("MessagePack length {v} is too large"))
    }

    fn string(&mut self, n: usize) -> Result<Value, String> {
        let at = self.at;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec())
            .map(Value::Str)
            .map_err(|_| format!("MessagePack string at offset {at} is not UTF-8"))
    }

    fn array(&mut self, n: usize, depth: u32) -> Result<Value, String> {
        // Each element takes at least one byte: cap the allocation by what is left.
        let mut out = Vec::with_capacity(n.min(self.bytes.len() - self.at));
        for _ in 0..n {
            out.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(out))
    }

    fn map(&mut self, n: usize, depth: u32) -> Result<Value, String> {
        let mut out = Vec::with_capacity(n.min((self.bytes.len() - self.at) / 2));
        for _ in 0..n {
            let k = self.value(depth + 1)?;
            let v = self.value(depth + 1)?;
            out.push((k, v));
        }
        Ok(Value::Map(out))
    }

    fn ext(&mut self, n: usize) -> Result<Value, String> {
        let t = self.take(1)?[0] as i8;
        Ok(Value::Ext(t, self.take(n)?.to_vec()))
    }

    fn value(&mut self, depth: u32) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("MessagePack nested deeper than {MAX_DEPTH} levels"));
        }
        let at = self.at;
        let tag = self.take(1)?[0];
        Ok(match tag {
            0x00..=0x7f => Value::Int(i128::from(tag)),
            0x80..=0x8f => return self.map(usize::from(tag & 0x0f), depth),
            0x90..=0x9f => return self.array(usize::from(tag & 0x0f), depth),
            0xa0..=0xbf => return self.string(usize::from(tag & 0x1f)),
            0xc0 => Value::Nil,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.len(1 << (tag - 0xc4))?;
                Value::Bin(self.take(n)?.to_vec())
            }
            0xc7..=0xc9 => {
                let n = self.len(1 << (tag - 0xc7))?;
                return self.ext(n);
            }
            0xca => Value::Float(f64::from(f32::from_bits(self.be(4)? as u32))),
            0xcb => Value::Float(f64::from_bits(self.be(8)?)),
            0xcc..=0xcf => Value::Int(i128::from(self.be(1 << (tag - 0xcc))?)),
            0xd0..=0xd3 => {
                let n = 1usize << (tag - 0xd0);
                let raw = self.be(n)?;
                // Sign-extend from n bytes.
                let shift = 64 - 8 * n as u32;
                Value::Int(i128::from(((raw << shift) as i64) >> shift))
            }
            0xd4..=0xd8 => return self.ext(1 << (tag - 0xd4)),
            0xd9..=0xdb => {
                let n = self.len(1 << (tag - 0xd9))?;
                return self.string(n);
            }
            0xdc | 0xdd => {
                let n = self.len(2 << (tag - 0xdc))?;
                return self.array(n, depth);
            }
            0xde | 0xdf => {
                let n = self.len(2 << (tag - 0xde))?;
                return self.map(n, depth);
            }
            0xe0..=0xff => Value::Int(i128::from(tag as i8)),
            0xc1 => return Err(format!("MessagePack byte 0xc1 (never used) at offset {at}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_each_kind() {
        // {"a": [1, -1, 300, -300, true, nil, "xy"], "b": 1.5}
        let bytes = [
            0x82, 0xa1, b'a', 0x97, 0x01, 0xff, 0xcd, 0x01, 0x2c, 0xd1, 0xfe, 0xd4, 0xc3, 0xc0,
            0xa2, b'x', b'y', 0xa1, b'b', 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0,
        ];
        let v = decode(&bytes).unwrap();
        let a = v.get("a").unwrap().as_array().unwrap();
        assert_eq!(
            a,
            [
                Value::Int(1),
                Value::Int(-1),
                Value::Int(300),
                Value::Int(-300),
                Value::Bool(true),
                Value::Nil,
                Value::Str("xy".into())
            ]
        );
        assert_eq!(v.get("b"), Some(&Value::Float(1.5)));
    }

    #[test]
    fn refuses_truncated_and_huge_lengths_without_allocating() {
        assert!(decode(&[0xdd, 0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(decode(&[0xdf, 0xff, 0xff, 0xff, 0xff, 0x01]).is_err());
        assert!(decode(&[0xdb, 0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(decode(&[0xc1]).is_err());
        assert!(decode(&[0x91]).is_err());
        assert!(decode(&[0x01, 0x02]).is_err());
        let deep = vec![0x91; 100];
        assert!(decode(&deep).unwrap_err().contains("deeper"));
    }
}
