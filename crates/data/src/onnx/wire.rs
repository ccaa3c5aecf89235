//! The protocol-buffer wire format, as much of it as an ONNX file needs
//! (issue 43): a writer of varint, 64-bit and length-delimited fields, and
//! a reader that splits a message back into its fields — for the tests'
//! round trip and for checking a written file, not a general decoder.
//!
//! Each field is a key `(number << 3) | wire type` (a varint) and a value:
//! wire type 0 a varint, 1 eight little-endian bytes, 2 a varint length and
//! that many bytes (strings, bytes, nested messages, packed repeated
//! numbers), 5 four little-endian bytes.

use std::fmt;

/// A message being written: its fields' bytes, in the order written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Message {
    bytes: Vec<u8>,
}

impl Message {
    /// An empty message.
    pub fn new() -> Self {
        Self::default()
    }

    /// The encoded message.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The encoded message so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn key(&mut self, field: u32, wire: u8) {
        push_varint(&mut self.bytes, (u64::from(field) << 3) | u64::from(wire));
    }

    /// An `int64`, `int32` or enum field (negative values take ten bytes,
    /// as protobuf encodes them).
    pub fn int(&mut self, field: u32, value: i64) -> &mut Self {
        self.key(field, 0);
        // Two's complement, as protobuf's int64.
        push_varint(&mut self.bytes, value as u64);
        self
    }

    /// A length-delimited field: bytes, a string or a nested message.
    pub fn bytes(&mut self, field: u32, value: &[u8]) -> &mut Self {
        self.key(field, 2);
        push_varint(&mut self.bytes, value.len() as u64);
        self.bytes.extend_from_slice(value);
        self
    }

    /// A string field.
    pub fn string(&mut self, field: u32, value: &str) -> &mut Self {
        self.bytes(field, value.as_bytes())
    }

    /// A nested message.
    pub fn message(&mut self, field: u32, value: &Message) -> &mut Self {
        self.bytes(field, &value.bytes)
    }

    /// A `float` field (wire type 5).
    pub fn float(&mut self, field: u32, value: f32) -> &mut Self {
        self.key(field, 5);
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// A packed repeated `int64` field (one length-delimited field).
    pub fn packed_ints(&mut self, field: u32, values: &[i64]) -> &mut Self {
        let mut packed = Vec::with_capacity(values.len());
        for &v in values {
            push_varint(&mut packed, v as u64);
        }
        self.bytes(field, &packed)
    }
}

/// Append `value` as a base-128 varint, low groups first.
fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// One field's value as read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1: eight bytes.
    Fixed64(u64),
    /// Wire type 2.
    Bytes(&'a [u8]),
    /// Wire type 5: four bytes.
    Fixed32(u32),
}

impl<'a> Value<'a> {
    /// The varint read as protobuf's `int64`.
    pub fn as_int(&self) -> Option<i64> {
        match *self {
            Value::Varint(v) => Some(v as i64),
            _ => None,
        }
    }

    /// The bytes of a length-delimited field.
    pub fn as_bytes(&self) -> Option<&'a [u8]> {
        match *self {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// A length-delimited field as UTF-8 text.
    pub fn as_str(&self) -> Option<&'a str> {
        self.as_bytes().and_then(|b| std::str::from_utf8(b).ok())
    }
}

/// Why bytes are not a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// The offset of the field that could not be read.
    pub offset: usize,
    /// What was wrong there.
    pub reason: &'static str,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not a protocol-buffer message at byte {}: {}",
            self.offset, self.reason
        )
    }
}

impl std::error::Error for WireError {}

fn read_varint(bytes: &[u8], at: &mut usize) -> Result<u64, WireError> {
    let start = *at;
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let Some(&b) = bytes.get(*at) else {
            return Err(WireError {
                offset: start,
                reason: "a varint runs past the end",
            });
        };
        *at += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(WireError {
        offset: start,
        reason: "a varint longer than ten bytes",
    })
}

fn take<'a>(bytes: &'a [u8], at: &mut usize, n: usize, offset: usize) -> Result<&'a [u8], WireError> {
    let end = at.checked_add(n).filter(|&e| e <= bytes.len()).ok_or(WireError {
        offset,
        reason: "a field runs past the end",
    })?;
    let out = &bytes[*at..end];
    *at = end;
    Ok(out)
}

/// Every field of a message, in order: `(number, value)`.
///
/// # Errors
/// [`WireError`] where a key, a length or a value runs past the end, or a
/// wire type is one this format does not use (3 and 4, the deprecated
/// groups, or 6 and 7).
pub fn fields(bytes: &[u8]) -> Result<Vec<(u32, Value<'_>)>, WireError> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let offset = at;
        let key = read_varint(bytes, &mut at)?;
        let number = u32::try_from(key >> 3).map_err(|_| WireError {
            offset,
            reason: "a field number beyond 32 bits",
        })?;
        let value = match key & 7 {
            0 => Value::Varint(read_varint(bytes, &mut at)?),
            1 => {
                let b = take(bytes, &mut at, 8, offset)?;
                Value::Fixed64(u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            }
            2 => {
                let n = read_varint(bytes, &mut at)?;
                let n = usize::try_from(n).map_err(|_| WireError {
                    offset,
                    reason: "a length beyond the address space",
                })?;
                Value::Bytes(take(bytes, &mut at, n, offset)?)
            }
            5 => {
                let b = take(bytes, &mut at, 4, offset)?;
                Value::Fixed32(u32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
            }
            _ => {
                return Err(WireError {
                    offset,
                    reason: "a wire type this format does not use",
                })
            }
        };
        out.push((number, value));
    }
    Ok(out)
}

/// The varints of a packed repeated field.
///
/// # Errors
/// [`WireError`] if a varint runs past the end.
pub fn packed_ints(bytes: &[u8]) -> Result<Vec<i64>, WireError> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        out.push(read_varint(bytes, &mut at)? as i64);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes computed by hand from the protobuf encoding rules (the
    /// documentation's own example: field 1 = 150 is `08 96 01`).
    #[test]
    fn fields_are_encoded_as_the_wire_format_says() {
        let mut m = Message::new();
        m.int(1, 150);
        assert_eq!(m.as_bytes(), &[0x08, 0x96, 0x01]);
        let mut s = Message::new();
        s.string(2, "testing");
        assert_eq!(s.as_bytes(), &[0x12, 0x07, b't', b'e', b's', b't', b'i', b'n', b'g']);
        let mut neg = Message::new();
        neg.int(3, -1);
        // -1 as int64: ten bytes, nine 0xff and a final 0x01.
        let mut want = vec![0x18];
        want.extend([0xff; 9]);
        want.push(0x01);
        assert_eq!(neg.as_bytes(), want.as_slice());
        let mut f = Message::new();
        f.float(2, 1.0);
        assert_eq!(f.as_bytes(), &[0x15, 0x00, 0x00, 0x80, 0x3f]);
        let mut p = Message::new();
        p.packed_ints(8, &[3, 270]);
        assert_eq!(p.as_bytes(), &[0x42, 0x03, 0x03, 0x8e, 0x02]);
    }

    #[test]
    fn what_is_written_reads_back() {
        let mut inner = Message::new();
        inner.int(1, 7).string(2, "name");
        let mut m = Message::new();
        m.int(1, i64::MIN)
            .message(7, &inner)
            .float(9, -2.5)
            .packed_ints(4, &[0, -3, i64::MAX])
            .bytes(5, &[]);
        let bytes = m.into_bytes();
        let f = fields(&bytes).expect("a message");
        assert_eq!(f.len(), 5);
        assert_eq!((f[0].0, f[0].1.as_int()), (1, Some(i64::MIN)));
        assert_eq!(f[1].0, 7);
        let inner_fields = fields(f[1].1.as_bytes().expect("bytes")).expect("inner");
        assert_eq!(inner_fields[0], (1, Value::Varint(7)));
        assert_eq!(inner_fields[1].1.as_str(), Some("name"));
        assert_eq!(f[2], (9, Value::Fixed32((-2.5f32).to_bits())));
        assert_eq!(
            packed_ints(f[3].1.as_bytes().expect("bytes")).expect("ints"),
            vec![0, -3, i64::MAX]
        );
        assert_eq!(f[4], (5, Value::Bytes(&[])));
    }

    #[test]
    fn truncated_and_malformed_bytes_are_errors() {
        let mut m = Message::new();
        m.string(2, "abc");
        let bytes = m.into_bytes();
        for cut in 1..bytes.len() {
            assert!(fields(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert_eq!(
            fields(&[0x0b]).unwrap_err().reason,
            "a wire type this format does not use"
        );
        assert!(fields(&[0xff; 12]).is_err(), "a varint of more than ten bytes");
        assert!(fields(&[]).expect("empty").is_empty());
    }
}
