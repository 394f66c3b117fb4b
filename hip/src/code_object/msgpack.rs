//! A MessagePack reader for the AMDGPU metadata note: the whole format
//! (<https://github.com/msgpack/msgpack/blob/master/spec.md>), read into a
//! tree, every length checked against the bytes left before anything is
//! allocated for it, nesting bounded. Strings that are not UTF-8 are kept
//! as bytes.

/// A decoded value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Nil,
    Bool(bool),
    /// Every integer, signed or not, fits an `i128`.
    Int(i128),
    Float(f64),
    Str(String),
    /// `bin`, `ext`, and `str` that is not UTF-8.
    Bytes(Vec<u8>),
    Array(Vec<Value>),
    Map(Vec<(Value, Value)>),
}

impl Value {
    /// The value under string key `key` of a map.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// What kind of value this is, for error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bytes(_) => "binary data",
            Value::Array(_) => "an array",
            Value::Map(_) => "a map",
        }
    }
}

/// The deepest nesting read (the metadata needs 4).
const MAX_DEPTH: u32 = 32;

/// Decodes one value that spans all of `bytes`.
pub(crate) fn decode(bytes: &[u8]) -> Result<Value, String> {
    let mut r = Decoder { bytes, at: 0 };
    let v = r.value(0)?;
    if r.at != bytes.len() {
        return Err(format!(
            "{} bytes follow the value that ends at byte {}",
            bytes.len() - r.at,
            r.at
        ));
    }
    Ok(v)
}

struct Decoder<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Decoder<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let left = self.bytes.len() - self.at;
        if n > left {
            return Err(format!(
                "truncated: {n} bytes needed at byte {}, {left} left",
                self.at
            ));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn be(&mut self, n: usize) -> Result<u64, String> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    /// A count of items that each take at least one byte: refused when the
    /// bytes left cannot hold them, so no allocation follows a bad count.
    fn count(&mut self, n: usize, per_item: usize) -> Result<usize, String> {
        let n = self.be(n)? as usize;
        let left = self.bytes.len() - self.at;
        if n.saturating_mul(per_item) > left {
            return Err(format!(
                "a count of {n} at byte {} cannot fit in the {left} bytes left",
                self.at
            ));
        }
        Ok(n)
    }

    fn value(&mut self, depth: u32) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        let tag = self.take(1)?[0];
        Ok(match tag {
            0x00..=0x7f => Value::Int(i128::from(tag)),
            0x80..=0x8f => self.map(usize::from(tag & 0x0f), depth)?,
            0x90..=0x9f => self.array(usize::from(tag & 0x0f), depth)?,
            0xa0..=0xbf => self.str(usize::from(tag & 0x1f))?,
            0xc0 => Value::Nil,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.count(1 << (tag - 0xc4), 1)?;
                Value::Bytes(self.take(n)?.to_vec())
            }
            0xc7..=0xc9 => {
                // ext 8/16/32: a length, a type byte, the data.
                let n = self.count(1 << (tag - 0xc7), 1)?;
                self.take(1)?;
                Value::Bytes(self.take(n)?.to_vec())
            }
            0xca => Value::Float(f64::from(f32::from_bits(self.be(4)? as u32))),
            0xcb => Value::Float(f64::from_bits(self.be(8)?)),
            0xcc..=0xcf => Value::Int(i128::from(self.be(1 << (tag - 0xcc))?)),
            0xd0..=0xd3 => {
                let bytes = 1usize << (tag - 0xd0);
                let raw = self.be(bytes)?;
                // Sign-extend from `bytes` bytes.
                let shift = 64 - 8 * bytes as u32;
                Value::Int(i128::from(((raw << shift) as i64) >> shift))
            }
            0xd4..=0xd8 => {
                // fixext 1/2/4/8/16: a type byte, then the data.
                self.take(1)?;
                Value::Bytes(self.take(1 << (tag - 0xd4))?.to_vec())
            }
            0xd9..=0xdb => {
                let n = self.count(1 << (tag - 0xd9), 1)?;
                self.str(n)?
            }
            0xdc | 0xdd => {
                let n = self.count(2 << (tag - 0xdc), 1)?;
                self.array(n, depth)?
            }
            0xde | 0xdf => {
                let n = self.count(2 << (tag - 0xde), 2)?;
                self.map(n, depth)?
            }
            0xe0..=0xff => Value::Int(i128::from(tag as i8)),
            0xc1 => return Err(format!("byte {} is 0xc1, never used", self.at - 1)),
        })
    }

    fn str(&mut self, n: usize) -> Result<Value, String> {
        let b = self.take(n)?;
        Ok(match std::str::from_utf8(b) {
            Ok(s) => Value::Str(s.to_owned()),
            Err(_) => Value::Bytes(b.to_vec()),
        })
    }

    fn array(&mut self, n: usize, depth: u32) -> Result<Value, String> {
        let mut items = Vec::with_capacity(n.min(self.bytes.len() - self.at));
        for _ in 0..n {
            items.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(items))
    }

    fn map(&mut self, n: usize, depth: u32) -> Result<Value, String> {
        let mut entries = Vec::with_capacity(n.min((self.bytes.len() - self.at) / 2));
        for _ in 0..n {
            let k = self.value(depth + 1)?;
            let v = self.value(depth + 1)?;
            entries.push((k, v));
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_decodes() {
        let cases: &[(&[u8], Value)] = &[
            (&[0x05], Value::Int(5)),
            (&[0xff], Value::Int(-1)),
            (&[0xcc, 0xfa], Value::Int(250)),
            (&[0xcd, 0x04, 0x00], Value::Int(1024)),
            (&[0xce, 0, 1, 0, 0], Value::Int(65536)),
            (
                &[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
                Value::Int(u64::MAX as i128),
            ),
            (&[0xd0, 0x80], Value::Int(-128)),
            (&[0xd1, 0xff, 0xfe], Value::Int(-2)),
            (
                &[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0],
                Value::Int(i64::MIN as i128),
            ),
            (&[0xc0], Value::Nil),
            (&[0xc3], Value::Bool(true)),
            (&[0xca, 0x3f, 0x80, 0, 0], Value::Float(1.0)),
            (&[0xa2, b'h', b'i'], Value::Str("hi".into())),
            (&[0xd9, 2, b'o', b'k'], Value::Str("ok".into())),
            (&[0xc4, 2, 1, 2], Value::Bytes(vec![1, 2])),
            (&[0xd4, 7, 9], Value::Bytes(vec![9])),
            (
                &[0x92, 0x01, 0xc2],
                Value::Array(vec![Value::Int(1), Value::Bool(false)]),
            ),
            (
                &[0x81, 0xa1, b'k', 0x07],
                Value::Map(vec![(Value::Str("k".into()), Value::Int(7))]),
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(decode(bytes).as_ref(), Ok(want), "{bytes:x?}");
        }
        let m = decode(&[0x81, 0xa1, b'k', 0x07]).unwrap();
        assert_eq!(m.get("k"), Some(&Value::Int(7)));
        assert_eq!(m.get("x"), None);
    }

    #[test]
    fn malformed_input_is_refused_with_a_reason() {
        let err = |b: &[u8]| decode(b).unwrap_err();
        assert!(err(&[]).contains("truncated"), "{}", err(&[]));
        assert!(err(&[0xcd, 0x04]).contains("truncated"));
        assert!(err(&[0xc1]).contains("0xc1"));
        assert!(err(&[0x01, 0x02]).contains("1 bytes follow"));
        // A huge count is refused before anything is allocated for it.
        let e = err(&[0xdd, 0xff, 0xff, 0xff, 0xff]);
        assert!(e.contains("cannot fit"), "{e}");
        let e = err(&[0xdf, 0x7f, 0xff, 0xff, 0xff, 0x00]);
        assert!(e.contains("cannot fit"), "{e}");
        // Deep nesting stops at the bound instead of exhausting the stack.
        let deep = vec![0x91u8; 10_000];
        assert!(err(&deep).contains("nested deeper"));
        // A map that ends half-way.
        assert!(err(&[0x82, 0xa1, b'a', 0x01]).contains("truncated"));
    }

    #[test]
    fn no_prefix_of_a_valid_value_panics() {
        let bytes = [
            0x82, 0xa1, b'a', 0x93, 0xcd, 0x01, 0x00, 0xd9, 0x03, b'x', b'y', b'z', 0xc3, 0xa1,
            b'b', 0xcb, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18,
        ];
        assert!(decode(&bytes).is_ok());
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n]).is_err(), "prefix of {n} accepted");
        }
    }
}
