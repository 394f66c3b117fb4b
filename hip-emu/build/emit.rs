//! Pseudocode to Rust: one function per instruction, over the
//! interpreter's `Ctx` (operands, masks, the memory of the access) and
//! `Mem` (loads and stores). Values are typed as the pseudocode types
//! them: integers of a width (emitted as `i128`, wrapped at their width),
//! floats (`f16`/`bf16` carried as `f32`, rounded when stored), booleans.
//! What this translator does not know is an error, and the instruction is
//! then reported as not implemented.

use crate::pcode::{Expr, Stmt};
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Ty {
    /// An integer: its width when known, its signedness.
    Int(Option<u32>, bool),
    /// A float: 16, 32, 64; `BF16` is 116.
    F(u32),
    Bool,
}

const BF16: u32 = 116;

/// Where a name's bits live.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Store {
    /// A raw `u64` place (`c.s[0]`, `c.d[0]`, `c.addr`, ...), `bits` wide.
    Raw(&'static str, u32),
    /// A wide data register (`c.vdata`), a `[u32; 16]`.
    Wide(&'static str),
    /// A local of a type.
    Local(Ty),
    /// A local array of a type and length.
    Array(Ty, u32),
}

/// What one translation learned about the instruction.
#[derive(Default, Debug, Clone)]
pub(crate) struct Facts {
    /// `D0.u64[laneId] = ...`: D0 is a lane mask, one bit per lane.
    pub d0_mask: bool,
    pub d1_mask: bool,
    pub writes: std::collections::BTreeSet<&'static str>,
    pub reads: std::collections::BTreeSet<&'static str>,
    /// Bits of S0, S1, S2, D0, D1 that the code reads or writes (widest typed access).
    pub widths: [u32; 5],
    /// The extent in bits of DATA, DATA2, VDATA, SDATA, RETURN_DATA as read or written.
    pub wide_bits: [u32; 5],
    /// S0, S1, S2 read as a float of this many bits (0: as integers).
    pub src_float: [u32; 3],
}

/// The index of a data register in [`Facts::wide_bits`], and its flag names.
fn wide_index(place: &str) -> (usize, &'static str, &'static str) {
    match place {
        "c.data" => (0, "DATA", "DATA"),
        "c.data2" => (1, "DATA2", "DATA2"),
        "c.vdata" => (2, "VDATA", "VDATA_W"),
        "c.sdata" => (3, "SDATA", "SDATA_W"),
        _ => (4, "RET", "RET_W"),
    }
}

struct Cx {
    /// Lambdas with statement bodies, emitted as closures `f_NAME`.
    lambdas: Vec<String>,
    out: String,
    locals: BTreeMap<String, Store>,
    facts: Facts,
    /// Per-lane (vector) code: `VCC = x` means this lane's bit.
    vector: bool,
    tmp: u32,
}

type R<T> = Result<T, String>;

fn ty_bits(t: Ty) -> Option<u32> {
    match t {
        Ty::Int(b, _) => b,
        Ty::F(16) | Ty::F(BF16) => Some(16),
        Ty::F(b) => Some(b),
        Ty::Bool => Some(1),
    }
}

/// The type a suffix names: `u32`, `i16`, `f32`, `bf16`, `b64`, `u1`, `u`.
fn suffix_ty(s: &str) -> Option<Ty> {
    if s == "bf16" {
        return Some(Ty::F(BF16));
    }
    let (k, n) = s.split_at(1);
    let n: u32 = if n.is_empty() { 32 } else { n.parse().ok()? };
    match k {
        "u" | "b" => Some(Ty::Int(Some(n), false)),
        "i" => Some(Ty::Int(Some(n), true)),
        "f" if matches!(n, 16 | 32 | 64) => Some(Ty::F(n)),
        _ => None,
    }
}

fn mask(bits: u32) -> String {
    if bits >= 128 {
        "(-1i128)".into()
    } else {
        format!("{}i128", (1u128 << bits) - 1)
    }
}

/// `v` (an i128 expression) wrapped to `t`'s width and signedness.
fn wrap(v: &str, t: Ty) -> String {
    match t {
        Ty::Int(Some(b), false) if b < 128 => format!("(({v}) & {})", mask(b)),
        Ty::Int(Some(b), true) if b < 128 => format!("sext({v}, {b})"),
        _ => v.to_string(),
    }
}

/// The Rust type name of a value type.
fn rust_ty(t: Ty) -> &'static str {
    match t {
        Ty::Int(..) => "i128",
        Ty::F(64) => "f64",
        Ty::F(_) => "f32",
        Ty::Bool => "bool",
    }
}

/// Converts a value to another type's value (not its bits).
fn convert(v: &str, from: Ty, to: Ty) -> String {
    match (from, to) {
        (Ty::Int(..), Ty::Int(..)) => wrap(v, to),
        (Ty::Bool, Ty::Int(..)) => format!("(({v}) as i128)"),
        (Ty::Int(..), Ty::Bool) => format!("(({v}) != 0)"),
        (Ty::Bool, Ty::Bool) => v.into(),
        (Ty::F(_), Ty::Bool) => format!("(({v}) != 0.0)"),
        (Ty::Bool, Ty::F(64)) => format!("(({v}) as u8 as f64)"),
        (Ty::Bool, Ty::F(_)) => format!("(({v}) as u8 as f32)"),
        (Ty::Int(..), Ty::F(64)) => format!("(({v}) as f64)"),
        (Ty::Int(..), Ty::F(_)) => format!("(({v}) as f32)"),
        (Ty::F(_), Ty::Int(..)) => wrap(&format!("(({v}) as i128)"), to),
        (Ty::F(a), Ty::F(b)) if a == b => v.into(),
        (Ty::F(64), Ty::F(32)) => format!("(({v}) as f32)"),
        (Ty::F(64), Ty::F(16)) => format!("f16_to_f32(f64_to_f16({v}))"),
        (Ty::F(64), Ty::F(BF16)) => format!("bf16_to_f32(f32_to_bf16(({v}) as f32))"),
        (Ty::F(_), Ty::F(64)) => format!("(({v}) as f64)"),
        (Ty::F(32), Ty::F(16)) => format!("f16_to_f32(f32_to_f16({v}))"),
        (Ty::F(32), Ty::F(BF16)) => format!("bf16_to_f32(f32_to_bf16({v}))"),
        (Ty::F(_), Ty::F(_)) => v.into(),
    }
}

/// The raw bits (as i128, zero-extended) of a value of type `t`.
fn to_bits(v: &str, t: Ty) -> String {
    match t {
        Ty::Int(..) => v.into(),
        Ty::Bool => format!("(({v}) as i128)"),
        Ty::F(64) => format!("(({v}).to_bits() as i128)"),
        Ty::F(32) => format!("(({v}).to_bits() as i128)"),
        Ty::F(16) => format!("(f32_to_f16({v}) as i128)"),
        Ty::F(_) => format!("(f32_to_bf16({v}) as i128)"),
    }
}

/// A value of type `t` from raw bits (an i128 expression).
fn from_bits(v: &str, t: Ty) -> String {
    match t {
        Ty::Int(..) => wrap(v, t),
        Ty::Bool => format!("((({v}) & 1) != 0)"),
        Ty::F(64) => format!("f64::from_bits(({v}) as u64)"),
        Ty::F(32) => format!("f32::from_bits(({v}) as u32)"),
        Ty::F(16) => format!("f16_to_f32(({v}) as u16)"),
        Ty::F(_) => format!("bf16_to_f32(({v}) as u16)"),
    }
}

fn is_float(t: Ty) -> bool {
    matches!(t, Ty::F(_))
}

/// The wider float of two (BF16 and F16 compute as f32).
fn float_join(a: Ty, b: Ty) -> Ty {
    let w = |t: Ty| match t {
        Ty::F(64) => 64,
        Ty::F(32) => 32,
        Ty::F(x) => x,
        _ => 0,
    };
    match (w(a), w(b)) {
        (64, _) | (_, 64) => Ty::F(64),
        (32, _) | (_, 32) => Ty::F(32),
        (16, _) | (_, 16) => Ty::F(16),
        (x, _) if x != 0 => Ty::F(x),
        (_, y) => Ty::F(y),
    }
}

fn int_join(a: Ty, b: Ty) -> Ty {
    match (a, b) {
        (Ty::Int(x, sx), Ty::Int(y, sy)) => {
            let bits = match (x, y) {
                (Some(x), Some(y)) => Some(x.max(y)),
                (Some(x), None) | (None, Some(x)) => Some(x),
                _ => None,
            };
            let signed = match (x, y) {
                (Some(_), Some(_)) => sx && sy,
                (Some(_), None) => sx,
                (None, Some(_)) => sy,
                _ => sx && sy,
            };
            Ty::Int(bits, signed)
        }
        (Ty::Bool, t) | (t, Ty::Bool) => {
            if let Ty::Int(..) = t {
                t
            } else {
                Ty::Int(Some(1), false)
            }
        }
        _ => Ty::Int(None, true),
    }
}

impl Cx {
    fn fresh(&mut self) -> String {
        self.tmp += 1;
        format!("t{}", self.tmp)
    }

    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// A name's storage.
    fn store_of(&mut self, name: &str) -> R<Store> {
        let idx = |n: &str| -> usize {
            match n {
                "S0" => 0,
                "S1" => 1,
                "S2" => 2,
                "D0" => 3,
                _ => 4,
            }
        };
        Ok(match name {
            "S0" | "S1" | "S2" | "D0" | "D1" => {
                let _ = idx(name);
                let place: &'static str = match name {
                    "S0" => "c.s[0]",
                    "S1" => "c.s[1]",
                    "S2" => "c.s[2]",
                    "D0" => "c.d[0]",
                    _ => "c.d[1]",
                };
                if name.starts_with('D') {
                    self.facts
                        .writes
                        .insert(if name == "D0" { "D0" } else { "D1" });
                }
                Store::Raw(place, 64)
            }
            "SIMM16" => {
                self.facts.reads.insert("SIMM16");
                Store::Raw("c.simm16", 16)
            }
            "SIMM32" => {
                self.facts.reads.insert("SIMM32");
                Store::Raw("c.simm32", 32)
            }
            "M0" => {
                self.facts.reads.insert("M0");
                Store::Raw("c.m0", 32)
            }
            "ADDR" => Store::Raw("c.addr", 64),
            "OPSEL" => {
                self.facts.reads.insert("OPSEL");
                Store::Raw("c.opsel", 4)
            }
            "OPSEL_HI" => {
                self.facts.reads.insert("OPSEL");
                Store::Raw("c.opsel_hi", 4)
            }
            "NEG" => {
                self.facts.reads.insert("NEG");
                Store::Raw("c.neg", 4)
            }
            // An LDS instruction whose pseudocode names no offset means
            // ADDR with the offset added (`MEM[ADDR].u16`); the flag tells
            // the interpreter which form it has.
            "OFFSET" | "OFFSET0" | "OFFSET1" => {
                self.facts.reads.insert("OFFSET");
                Store::Raw(
                    match name {
                        "OFFSET" => "c.offset",
                        "OFFSET0" => "c.offset0",
                        _ => "c.offset1",
                    },
                    32,
                )
            }
            "DATA" | "DATA0" => Store::Wide("c.data"),
            "DATA2" | "DATA1" => Store::Wide("c.data2"),
            "VDATA" => Store::Wide("c.vdata"),
            "SDATA" => Store::Wide("c.sdata"),
            "RETURN_DATA" => Store::Wide("c.ret"),
            _ => match self.locals.get(name) {
                Some(s) => *s,
                None => return Err(format!("unknown name {name}")),
            },
        })
    }

    /// Notes a read or write of `bits` bits of a data register.
    fn wide_use(&mut self, place: &str, bits: u32, write: bool) {
        let (i, read_flag, write_flag) = wide_index(place);
        self.facts.wide_bits[i] = self.facts.wide_bits[i].max(bits);
        if write {
            self.facts.writes.insert(write_flag);
        } else {
            self.facts.reads.insert(read_flag);
        }
    }

    fn local_name(name: &str) -> String {
        format!("l_{name}")
    }

    /// Reads an expression: Rust code and its type.
    fn expr(&mut self, e: &Expr) -> R<(String, Ty)> {
        Ok(match e {
            Expr::Int(v, bits, signed) => {
                if *v > i128::MAX as u128 {
                    return Err("integer literal too large".into());
                }
                (format!("{v}i128"), Ty::Int(*bits, *signed))
            }
            Expr::Float(v, bits) => {
                let t = match bits {
                    64 => Ty::F(64),
                    16 => Ty::F(16),
                    _ => Ty::F(32),
                };
                let lit = if v.fract() == 0.0 && v.abs() < 1e15 {
                    format!("{v:.1}")
                } else {
                    format!("{v:e}")
                };
                (
                    format!("({lit}{})", if t == Ty::F(64) { "f64" } else { "f32" }),
                    t,
                )
            }
            Expr::Var(name) => self.var(name)?,
            Expr::Field(base, f) => self.field(base, f)?,
            Expr::Index(base, i) => self.index(base, i)?,
            Expr::Slice(base, hi, lo) => self.slice(base, hi, lo)?,
            Expr::Unary(op, x) => {
                let (v, t) = self.expr(x)?;
                match (*op, t) {
                    ("!", _) => (format!("(!{})", convert(&v, t, Ty::Bool)), Ty::Bool),
                    ("-", Ty::F(_)) => (format!("(-{v})"), t),
                    ("-", Ty::Bool) => (format!("(-({v} as i128))"), Ty::Int(None, true)),
                    ("-", Ty::Int(..)) => (wrap(&format!("(-{v})"), t), t),
                    ("~", Ty::Int(..)) => (wrap(&format!("(!{v})"), t), t),
                    ("~", Ty::Bool) => (format!("(!{v})"), Ty::Bool),
                    _ => return Err(format!("unary {op} on {t:?}")),
                }
            }
            Expr::Binary(op, a, b) => self.binary(op, a, b)?,
            Expr::Ternary(c, a, b) => {
                let (cv, ct) = self.expr(c)?;
                let (av, at) = self.expr(a)?;
                let (bv, bt) = self.expr(b)?;
                let t = if is_float(at) || is_float(bt) {
                    float_join(at, bt)
                } else if at == Ty::Bool && bt == Ty::Bool {
                    Ty::Bool
                } else {
                    int_join(at, bt)
                };
                (
                    format!(
                        "(if {} {{ {} }} else {{ {} }})",
                        convert(&cv, ct, Ty::Bool),
                        convert(&av, at, t),
                        convert(&bv, bt, t)
                    ),
                    t,
                )
            }
            Expr::Cast(bits, ty, x) => {
                let (v, t) = self.expr(x)?;
                let to = match ty {
                    'U' | 'B' => Ty::Int(Some(*bits), false),
                    'I' => Ty::Int(Some(*bits), true),
                    'F' => match bits {
                        16 => Ty::F(16),
                        32 => Ty::F(32),
                        64 => Ty::F(64),
                        _ => return Err(format!("cast to {bits}'F")),
                    },
                    _ => return Err(format!("cast {ty}")),
                };
                match (t, to) {
                    // An integer cast to a float is its bits (`32'F(0xffc00000)`).
                    (Ty::Int(..), Ty::F(_)) => (from_bits(&v, to), to),
                    _ => (convert(&v, t, to), to),
                }
            }
            Expr::Concat(parts) => {
                let mut acc = String::from("0i128");
                let mut total = 0u32;
                for p in parts {
                    let (v, t) = self.expr(p)?;
                    let w = ty_bits(t).ok_or("a concatenated part of unknown width")?;
                    let b = to_bits(&v, t);
                    acc = format!("(({acc} << {w}) | ({b} & {}))", mask(w));
                    total += w;
                }
                if total > 127 {
                    return Err("a concatenation wider than 127 bits".into());
                }
                (acc, Ty::Int(Some(total), false))
            }
            Expr::Call(name, args) => self.call(name, args)?,
        })
    }

    fn var(&mut self, name: &str) -> R<(String, Ty)> {
        Ok(match name {
            "SCC" => {
                self.facts.reads.insert("SCC");
                ("c.scc".into(), Ty::Bool)
            }
            "VCC" => {
                self.facts.reads.insert("VCC");
                ("(c.vcc as i128)".into(), Ty::Int(Some(64), false))
            }
            "EXEC" => {
                self.facts.reads.insert("EXEC");
                ("(c.exec as i128)".into(), Ty::Int(Some(64), false))
            }
            "EXEC_LO" => ("((c.exec as u32) as i128)".into(), Ty::Int(Some(32), false)),
            "EXECZ" => ("(c.exec == 0)".into(), Ty::Bool),
            "VCCZ" => ("(c.vcc == 0)".into(), Ty::Bool),
            "laneId" | "laneID" => ("(c.lane as i128)".into(), Ty::Int(Some(32), false)),
            "PC" => {
                self.facts.reads.insert("PC");
                ("(c.pc as i64 as i128)".into(), Ty::Int(Some(64), true))
            }
            "WAVE64" => ("c.wave64".into(), Ty::Bool),
            "WAVE32" => ("(!c.wave64)".into(), Ty::Bool),
            "INF" => ("f64::INFINITY".into(), Ty::F(64)),
            "NAN" => ("f64::NAN".into(), Ty::F(64)),
            "PI" => ("std::f64::consts::PI".into(), Ty::F(64)),
            "OVERFLOW_F32" => ("(f32::MAX as f64)".into(), Ty::F(64)),
            "UNDERFLOW_F32" => ("(f32::MIN_POSITIVE as f64)".into(), Ty::F(64)),
            "OVERFLOW_F64" => ("f64::MAX".into(), Ty::F(64)),
            "UNDERFLOW_F64" => ("f64::MIN_POSITIVE".into(), Ty::F(64)),
            "MAX_FLOAT_F32" => ("(f32::MAX as f64)".into(), Ty::F(64)),
            _ => match self.store_of(name)? {
                Store::Raw(place, bits) => {
                    self.note_width(name, 64);
                    (
                        format!("(({place} as i128) & {})", mask(bits)),
                        Ty::Int(Some(bits), false),
                    )
                }
                Store::Wide(place) => {
                    self.wide_use(place, 64, false);
                    (
                        format!("wide_get(&{place}, 0, 64)"),
                        Ty::Int(Some(64), false),
                    )
                }
                Store::Local(t) => (Self::local_name(name), t),
                Store::Array(..) => return Err(format!("array {name} used whole")),
            },
        })
    }

    fn note_width(&mut self, name: &str, bits: u32) {
        let i = match name {
            "S0" => 0,
            "S1" => 1,
            "S2" => 2,
            "D0" => 3,
            "D1" => 4,
            _ => return,
        };
        self.facts.widths[i] = self.facts.widths[i].max(bits);
    }

    /// `base.suffix`
    fn field(&mut self, base: &Expr, f: &str) -> R<(String, Ty)> {
        if let Expr::Var(n) = base {
            if n == "WAVE_MODE" && f == "IEEE" {
                return Ok(("c.ieee".into(), Ty::Bool));
            }
            if matches!(
                n.as_str(),
                "INF"
                    | "NAN"
                    | "OVERFLOW_F32"
                    | "UNDERFLOW_F32"
                    | "OVERFLOW_F64"
                    | "UNDERFLOW_F64"
                    | "MAX_FLOAT_F32"
            ) {
                let t = suffix_ty(f).ok_or_else(|| format!("{n}.{f}"))?;
                let (v, vt) = self.var(n)?;
                return Ok((convert(&v, vt, t), t));
            }
        }
        let t = suffix_ty(f).ok_or_else(|| format!("field .{f}"))?;
        // MEM[addr].t
        if let Expr::Index(m, a) = base {
            if matches!(&**m, Expr::Var(x) if x == "MEM") {
                let (av, at) = self.expr(a)?;
                let bytes = ty_bits(t).unwrap_or(32) / 8;
                self.facts.reads.insert("MEM");
                let raw = format!("(m.load({} as u64, {bytes}) as i128)", to_bits(&av, at));
                return Ok((from_bits(&raw, t), t));
            }
        }
        if let Expr::Var(n) = base {
            if let Ok(Store::Raw(place, _)) = self.store_of(n) {
                let bits = ty_bits(t).unwrap_or(64);
                self.note_width(n, bits);
                if let (Ty::F(_), Some(i)) = (t, ["S0", "S1", "S2"].iter().position(|x| x == n)) {
                    self.facts.src_float[i] = bits;
                }
                return Ok((from_bits(&format!("({place} as i128)"), t), t));
            }
            if let Ok(Store::Wide(place)) = self.store_of(n) {
                let bits = ty_bits(t).unwrap_or(32);
                self.wide_use(place, bits, false);
                return Ok((from_bits(&format!("wide_get(&{place}, 0, {bits})"), t), t));
            }
            if n == "SCC" {
                return Ok((convert("c.scc", Ty::Bool, t), t));
            }
        }
        let (v, vt) = self.expr(base)?;
        if vt == t {
            return Ok((v, t));
        }
        Ok((from_bits(&to_bits(&v, vt), t), t))
    }

    fn index(&mut self, base: &Expr, i: &Expr) -> R<(String, Ty)> {
        if let Expr::Var(n) = base {
            if let Some(Store::Array(t, len)) = self.locals.get(n).copied() {
                let (iv, _) = self.expr(i)?;
                return Ok((
                    format!("{}[(({iv}) as usize) % {len}]", Self::local_name(n)),
                    t,
                ));
            }
            if n == "MEM" {
                // Untyped: a dword.
                return self.field(
                    &Expr::Index(Box::new(base.clone()), Box::new(i.clone())),
                    "b32",
                );
            }
            if n == "HW_REGISTERS" {
                let (iv, it) = self.expr(i)?;
                return Ok((
                    format!(
                        "hw_register({} as u32)",
                        convert(&iv, it, Ty::Int(None, true))
                    ),
                    Ty::Int(Some(32), false),
                ));
            }
            if n == "VGPR" || n == "SGPR" {
                return Err(format!("{n}[...] read outside a typed access"));
            }
        }
        let (v, t) = self.expr(base)?;
        let (iv, _) = self.expr(i)?;
        Ok((
            format!(
                "((({} as i128) >> (({iv}) as u32 & 127)) & 1)",
                to_bits(&v, t)
            ),
            Ty::Int(Some(1), false),
        ))
    }

    fn const_of(e: &Expr) -> Option<u32> {
        match e {
            Expr::Int(v, _, _) => Some(*v as u32),
            _ => None,
        }
    }

    fn slice(&mut self, base: &Expr, hi: &Expr, lo: &Expr) -> R<(String, Ty)> {
        // `S0.u32[63 : 32]`: the bits of the register, whatever the type
        // named before the slice (the data writes V_PK_MOV_B32 so).
        if let Expr::Field(inner, _) = base {
            if let Expr::Var(n) = &**inner {
                if matches!(self.store_of(n), Ok(Store::Raw(..)) | Ok(Store::Wide(_))) {
                    return self.slice(inner, hi, lo);
                }
            }
        }
        let (hv, _) = self.expr(hi)?;
        let (lv, _) = self.expr(lo)?;
        if let (Some(h), Some(l)) = (Self::const_of(hi), Self::const_of(lo)) {
            if h < l {
                // `x[0 : 31]`: the bits reversed.
                let w = l - h + 1;
                let (v, t) = self.expr(base)?;
                let raw = format!("((({}) >> {h}) & {})", to_bits(&v, t), mask(w));
                return Ok((format!("reverse_bits({raw}, {w})"), Ty::Int(Some(w), false)));
            }
            let w = h - l + 1;
            if let Expr::Var(n) = base {
                if let Ok(Store::Wide(place)) = self.store_of(n) {
                    self.wide_use(place, h + 1, false);
                    return Ok((
                        format!("wide_get(&{place}, {l}, {w})"),
                        Ty::Int(Some(w), false),
                    ));
                }
                if let Ok(Store::Raw(place, _)) = self.store_of(n) {
                    self.note_width(n, h + 1);
                    return Ok((
                        format!("((({place} as i128) >> {l}) & {})", mask(w)),
                        Ty::Int(Some(w), false),
                    ));
                }
            }
            let (v, t) = self.expr(base)?;
            return Ok((
                format!("((({}) >> {l}) & {})", to_bits(&v, t), mask(w)),
                Ty::Int(Some(w), false),
            ));
        }
        let (v, t) = self.expr(base)?;
        Ok((
            format!(
                "((({}) >> (({lv}) as u32 & 127)) & (((1i128 << ((({hv}) - ({lv}) + 1) as u32 & 127)) - 1)))",
                to_bits(&v, t)
            ),
            Ty::Int(None, false),
        ))
    }

    fn binary(&mut self, op: &str, a: &Expr, b: &Expr) -> R<(String, Ty)> {
        // `x == DENORM.f32`: x is a denormal of that precision.
        let denorm = |e: &Expr| match e {
            Expr::Field(v, t) if matches!(&**v, Expr::Var(n) if n == "DENORM") => suffix_ty(t),
            _ => None,
        };
        if matches!(op, "==" | "!=") {
            if let Some((x, t)) = denorm(b)
                .map(|t| (a, t))
                .or_else(|| denorm(a).map(|t| (b, t)))
            {
                let (xv, xt) = self.expr(x)?;
                let bits = ty_bits(t).ok_or("DENORM of an unknown width")?;
                let test = format!("is_denormal({}, {bits})", convert(&xv, xt, Ty::F(64)));
                return Ok((
                    if op == "==" {
                        test
                    } else {
                        format!("(!{test})")
                    },
                    Ty::Bool,
                ));
            }
        }
        let (av, at) = self.expr(a)?;
        let (bv, bt) = self.expr(b)?;
        let any_float = is_float(at) || is_float(bt);
        Ok(match op {
            "&&" | "||" => (
                format!(
                    "({} {op} {})",
                    convert(&av, at, Ty::Bool),
                    convert(&bv, bt, Ty::Bool)
                ),
                Ty::Bool,
            ),
            "==" | "!=" | "<" | ">" | "<=" | ">=" => {
                if any_float {
                    let t = float_join(at, bt);
                    let ct = if t == Ty::F(64) { Ty::F(64) } else { Ty::F(32) };
                    (
                        format!("({} {op} {})", convert(&av, at, ct), convert(&bv, bt, ct)),
                        Ty::Bool,
                    )
                } else if at == Ty::Bool && bt == Ty::Bool {
                    (format!("({av} {op} {bv})"), Ty::Bool)
                } else {
                    let i = Ty::Int(None, true);
                    (
                        format!("({} {op} {})", convert(&av, at, i), convert(&bv, bt, i)),
                        Ty::Bool,
                    )
                }
            }
            "+" | "-" | "*" | "/" if any_float => {
                let t = float_join(at, bt);
                let ct = if t == Ty::F(64) { Ty::F(64) } else { Ty::F(32) };
                (
                    format!("({} {op} {})", convert(&av, at, ct), convert(&bv, bt, ct)),
                    t,
                )
            }
            "**" => {
                if !any_float {
                    return Err("integer **".into());
                }
                let t = if is_float(at) { at } else { bt };
                let ct = if t == Ty::F(64) { Ty::F(64) } else { Ty::F(32) };
                let e = convert(&bv, bt, Ty::F(64));
                (
                    convert(
                        &format!("({}).powf({e})", convert(&av, at, Ty::F(64))),
                        Ty::F(64),
                        ct,
                    ),
                    t,
                )
            }
            "&" | "|" | "^" if at == Ty::Bool && bt == Ty::Bool => {
                (format!("({av} {op} {bv})"), Ty::Bool)
            }
            "+" | "-" | "*" | "&" | "|" | "^" => {
                if any_float {
                    return Err(format!("float {op}"));
                }
                let t = int_join(at, bt);
                let i = Ty::Int(None, true);
                let code = format!(
                    "({}).wrapping_{}({})",
                    convert(&av, at, i),
                    match op {
                        "+" => "add",
                        "-" => "sub",
                        "*" => "mul",
                        _ => "",
                    },
                    convert(&bv, bt, i)
                );
                let code = match op {
                    "&" | "|" | "^" => {
                        format!("({} {op} {})", convert(&av, at, i), convert(&bv, bt, i))
                    }
                    _ => code,
                };
                (wrap(&code, t), t)
            }
            "/" | "%" => {
                let t = int_join(at, bt);
                let i = Ty::Int(None, true);
                let f = if op == "/" { "idiv" } else { "irem" };
                (
                    format!("{f}({}, {})", convert(&av, at, i), convert(&bv, bt, i)),
                    t,
                )
            }
            "<<" => {
                if any_float {
                    return Err("float <<".into());
                }
                let t = match at {
                    Ty::Int(..) => at,
                    _ => Ty::Int(None, false),
                };
                let i = Ty::Int(None, true);
                (
                    wrap(
                        &format!("shl({}, {})", convert(&av, at, i), convert(&bv, bt, i)),
                        t,
                    ),
                    t,
                )
            }
            ">>" => {
                if any_float {
                    return Err("float >>".into());
                }
                let t = match at {
                    Ty::Int(..) => at,
                    _ => Ty::Int(None, false),
                };
                let i = Ty::Int(None, true);
                (
                    format!("shr({}, {})", convert(&av, at, i), convert(&bv, bt, i)),
                    t,
                )
            }
            _ => return Err(format!("operator {op}")),
        })
    }

    fn call(&mut self, name: &str, args: &[Expr]) -> R<(String, Ty)> {
        // Address helpers: the interpreter computed the address from the
        // encoding (`c.addr`); the DS form adds its offsets in the code.
        match name {
            "CalcDsAddr" => {
                let (v, t) = self.expr(args.first().ok_or("CalcDsAddr()")?)?;
                return Ok((to_bits(&v, t), Ty::Int(Some(32), false)));
            }
            "CalcGlobalAddr"
            | "CalcFlatAddr"
            | "CalcScratchAddr"
            | "CalcScalarGlobalAddr"
            | "CalcBufferAddr"
            | "CalcScalarBufferAddr" => {
                return Ok(("(c.addr as i128)".into(), Ty::Int(Some(64), false)));
            }
            "s_nop" | "nop" => return Ok(("0i128".into(), Ty::Int(None, true))),
            // A branch's offset: `signext(SIMM16.i16 * 16'4)`, the word
            // offset in bytes. Read literally, the 16-bit product wraps
            // for offsets of 8192 words (32 KiB) or more, and a long
            // forward branch would land 64 KiB back; the hardware reaches
            // +-2^15 words, so the factors are extended first and the
            // product taken at full width.
            "signext" => {
                if let Some(Expr::Binary("*", x, y)) = args.first() {
                    let wide = |e: &Expr| Expr::Call("signext".into(), vec![e.clone()]);
                    return self.expr(&Expr::Binary("*", Box::new(wide(x)), Box::new(wide(y))));
                }
            }
            _ => {}
        }
        if self.lambdas.iter().any(|l| l == name) {
            let mut list = Vec::new();
            for a in args {
                let (v, t) = self.expr(a)?;
                list.push(convert(&v, t, Ty::Int(None, true)));
            }
            return Ok((
                format!("f_{name}({})", list.join(", ")),
                Ty::Int(None, false),
            ));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        let arg = |i: usize| -> R<(String, Ty)> {
            vals.get(i)
                .cloned()
                .ok_or_else(|| format!("{name}: missing argument {i}"))
        };
        let f32a = |i: usize| -> R<String> {
            let (v, t) = arg(i)?;
            Ok(convert(&v, t, Ty::F(32)))
        };
        let f64a = |i: usize| -> R<String> {
            let (v, t) = arg(i)?;
            Ok(convert(&v, t, Ty::F(64)))
        };
        let inta = |i: usize| -> R<String> {
            let (v, t) = arg(i)?;
            Ok(convert(&v, t, Ty::Int(None, true)))
        };
        // A float function applied at its argument's precision.
        let unary_f = |rust: &str| -> R<(String, Ty)> {
            let (v, t) = arg(0)?;
            let t = if is_float(t) { t } else { Ty::F(32) };
            let ct = if t == Ty::F(64) { Ty::F(64) } else { Ty::F(32) };
            Ok((format!("{rust}({})", convert(&v, arg(0)?.1, ct)), t))
        };
        Ok(match name {
            "fma" => {
                let t = float_join(float_join(arg(0)?.1, arg(1)?.1), arg(2)?.1);
                match t {
                    Ty::F(64) => (
                        format!("({}).mul_add({}, {})", f64a(0)?, f64a(1)?, f64a(2)?),
                        t,
                    ),
                    Ty::F(32) => (
                        format!("({}).mul_add({}, {})", f32a(0)?, f32a(1)?, f32a(2)?),
                        t,
                    ),
                    _ => (
                        format!(
                            "(({}).mul_add({}, {}) as f32)",
                            f64a(0)?,
                            f64a(1)?,
                            f64a(2)?
                        ),
                        t,
                    ),
                }
            }
            "sqrt" => unary_f("fsqrt")?,
            "floor" => unary_f("ffloor")?,
            "trunc" => unary_f("ftrunc")?,
            "fract" => unary_f("ffract")?,
            "log2" => unary_f("flog2")?,
            "sin" => unary_f("fsin")?,
            "cos" => unary_f("fcos")?,
            "abs" => {
                let (v, t) = arg(0)?;
                match t {
                    Ty::F(_) => (format!("({v}).abs()"), t),
                    Ty::Int(..) => (format!("({v}).abs()"), t),
                    Ty::Bool => (v, t),
                }
            }
            "pow" => {
                let t = float_join(arg(0)?.1, arg(1)?.1);
                let ct = if t == Ty::F(64) { Ty::F(64) } else { Ty::F(32) };
                (
                    convert(&format!("({}).powf({})", f64a(0)?, f64a(1)?), Ty::F(64), ct),
                    t,
                )
            }
            "ldexp" => {
                let (_, t) = arg(0)?;
                let t = if is_float(t) { t } else { Ty::F(32) };
                match t {
                    Ty::F(64) => (format!("ldexp64({}, {})", f64a(0)?, inta(1)?), t),
                    _ => (format!("ldexp32({}, {})", f32a(0)?, inta(1)?), t),
                }
            }
            "exponent" => {
                let (v, t) = arg(0)?;
                let code = match t {
                    Ty::F(64) => format!("(((({v}).to_bits() >> 52) & 0x7ff) as i128)"),
                    Ty::F(16) => format!("(((f32_to_f16({v}) >> 10) & 0x1f) as i128)"),
                    Ty::F(BF16) => format!("(((f32_to_bf16({v}) >> 7) & 0xff) as i128)"),
                    Ty::F(_) => format!("(((({v}).to_bits() >> 23) & 0xff) as i128)"),
                    _ => return Err("exponent of an integer".into()),
                };
                (code, Ty::Int(Some(32), true))
            }
            "mantissa" => {
                let (v, t) = arg(0)?;
                match t {
                    Ty::F(64) => (format!("mantissa64({v})"), Ty::F(64)),
                    Ty::F(32) => (format!("mantissa32({v})"), Ty::F(32)),
                    _ => return Err("mantissa of this type".into()),
                }
            }
            "sign" => {
                let (v, t) = arg(0)?;
                match t {
                    Ty::F(_) => (
                        format!("(({v}).is_sign_negative() as i128)"),
                        Ty::Int(Some(1), false),
                    ),
                    _ => return Err("sign of an integer".into()),
                }
            }
            "isNAN" => (format!("({}).is_nan()", f64a(0)?), Ty::Bool),
            "isSignalNAN" => (format!("is_signal_nan({})", f64a(0)?), Ty::Bool),
            "isQuietNAN" => (format!("is_quiet_nan({})", f64a(0)?), Ty::Bool),
            "cvtToQuietNAN" => (format!("quiet_nan({})", f64a(0)?), Ty::F(64)),
            "isEven" => (format!("(({}) % 2 == 0)", inta(0)?), Ty::Bool),
            "signext" => {
                let (v, t) = arg(0)?;
                match t {
                    Ty::Int(Some(b), false) => (format!("sext({v}, {b})"), Ty::Int(Some(64), true)),
                    Ty::Int(_, _) => (v, Ty::Int(Some(64), true)),
                    _ => return Err("signext of a non-integer".into()),
                }
            }
            "signext_from_bit" => (
                format!("sext({}, ({}) as u32)", inta(0)?, inta(1)?),
                Ty::Int(Some(64), true),
            ),
            "f32_to_f16" => (format!("f16_to_f32(f32_to_f16({}))", f32a(0)?), Ty::F(16)),
            "f16_to_f32" | "bf16_to_f32" => (f32a(0)?, Ty::F(32)),
            "f32_to_bf16" => (
                format!("bf16_to_f32(f32_to_bf16({}))", f32a(0)?),
                Ty::F(BF16),
            ),
            "f64_to_f32" => (format!("(({}) as f32)", f64a(0)?), Ty::F(32)),
            "f32_to_f64" => (f64a(0)?, Ty::F(64)),
            "f32_to_i32" | "f64_to_i32" | "f16_to_i16" => {
                let w = if name == "f16_to_i16" { 16 } else { 32 };
                (
                    format!("f_to_int({}, {w}, true)", f64a(0)?),
                    Ty::Int(Some(w), true),
                )
            }
            "f32_to_u32" | "f64_to_u32" | "f16_to_u16" | "f32_to_u8" => {
                let w = match name {
                    "f16_to_u16" => 16,
                    "f32_to_u8" => 8,
                    _ => 32,
                };
                (
                    format!("f_to_int({}, {w}, false)", f64a(0)?),
                    Ty::Int(Some(w), false),
                )
            }
            "i32_to_f32" | "u32_to_f32" => (format!("(({}) as f32)", inta(0)?), Ty::F(32)),
            "i32_to_f64" | "u32_to_f64" => (format!("(({}) as f64)", inta(0)?), Ty::F(64)),
            "u16_to_f16" | "i16_to_f16" => (
                format!("f16_to_f32(f32_to_f16(({}) as f32))", inta(0)?),
                Ty::F(16),
            ),
            "u8_to_u32" | "u16_to_u32" | "u4_to_u32" | "u32_to_u16" => {
                let w = if name == "u32_to_u16" { 16 } else { 32 };
                (
                    wrap(&inta(0)?, Ty::Int(Some(w), false)),
                    Ty::Int(Some(w), false),
                )
            }
            "i8_to_i32" | "i16_to_i32" | "i4_to_i32" | "i32_to_i16" => {
                let (v, t) = arg(0)?;
                let src = match name {
                    "i8_to_i32" => 8,
                    "i16_to_i32" => 16,
                    "i4_to_i32" => 4,
                    _ => 32,
                };
                let w = if name == "i32_to_i16" { 16 } else { 32 };
                let x = format!("sext({}, {src})", convert(&v, t, Ty::Int(None, true)));
                (wrap(&x, Ty::Int(Some(w), true)), Ty::Int(Some(w), true))
            }
            "s_ff1_i32_b32" | "s_ff1_i32_b64" => {
                (format!("ff1({})", inta(0)?), Ty::Int(Some(32), true))
            }
            "countbits" | "bitCount" | "count_ones" => (
                format!("((({}) as u128).count_ones() as i128)", inta(0)?),
                Ty::Int(Some(32), false),
            ),
            "ABSDIFF" => (
                format!("(({}) - ({})).abs()", inta(0)?, inta(1)?),
                Ty::Int(Some(32), false),
            ),
            "SAT8" => (
                format!("({}).clamp(-128, 127)", inta(0)?),
                Ty::Int(Some(8), true),
            ),
            "LT_NEG_ZERO" => (format!("lt_neg_zero({}, {})", f64a(0)?, f64a(1)?), Ty::Bool),
            "GT_NEG_ZERO" => (format!("gt_neg_zero({}, {})", f64a(0)?, f64a(1)?), Ty::Bool),
            "v_min_f32" | "v_max_f32" | "v_min_f16" | "v_max_f16" | "v_min3_f32" | "v_max3_f32"
            | "v_min3_f16" | "v_max3_f16" => {
                let t = arg(0)?.1;
                let t = if is_float(t) { t } else { Ty::F(32) };
                let list: Vec<String> = (0..vals.len()).map(f64a).collect::<R<_>>()?;
                let f = if name.contains("max") {
                    "fmax_ieee"
                } else {
                    "fmin_ieee"
                };
                let mut acc = list[0].clone();
                for x in &list[1..] {
                    acc = format!("{f}({acc}, {x}, c.ieee)");
                }
                (
                    convert(
                        &acc,
                        Ty::F(64),
                        if t == Ty::F(64) { Ty::F(64) } else { Ty::F(32) },
                    ),
                    t,
                )
            }
            "v_min_i32" | "v_max_i32" | "v_min_u32" | "v_max_u32" | "v_min_i16" | "v_max_i16"
            | "v_min_u16" | "v_max_u16" | "v_max3_i32" | "v_max3_u32" | "v_max3_i16"
            | "v_max3_u16" => {
                let list: Vec<String> = (0..vals.len()).map(inta).collect::<R<_>>()?;
                let f = if name.contains("max") { "max" } else { "min" };
                let mut acc = list[0].clone();
                for x in &list[1..] {
                    acc = format!("({acc}).{f}({x})");
                }
                let signed = name.contains("_i");
                let w = if name.ends_with("16") { 16 } else { 32 };
                (acc, Ty::Int(Some(w), signed))
            }
            _ => return Err(format!("function {name}")),
        })
    }

    /// Assigns a value to a target.
    fn assign(&mut self, d: usize, target: &Expr, v: &str, vt: Ty) -> R<()> {
        match target {
            Expr::Var(n) => match n.as_str() {
                "SCC" => {
                    self.facts.writes.insert("SCC");
                    let b = convert(v, vt, Ty::Bool);
                    self.line(d, &format!("c.scc = {b};"));
                }
                "PC" => {
                    self.facts.writes.insert("PC");
                    let i = convert(v, vt, Ty::Int(None, true));
                    self.line(d, &format!("c.pc = ({i}) as u64;"));
                }
                "VCC" => {
                    self.facts.writes.insert("VCC");
                    let i = convert(v, vt, Ty::Int(None, true));
                    if self.vector {
                        self.line(
                            d,
                            &format!("set_lane(&mut c.vcc_out, c.lane, (({i}) & 1) != 0);"),
                        );
                    } else {
                        self.line(d, &format!("c.vcc_out = ({i}) as u64;"));
                    }
                }
                "EXEC" => {
                    self.facts.writes.insert("EXEC");
                    let i = convert(v, vt, Ty::Int(None, true));
                    self.line(d, &format!("c.exec = ({i}) as u64;"));
                }
                _ => match self.store_of(n)? {
                    Store::Raw(place, bits) => {
                        let i = to_bits(v, vt);
                        let w = ty_bits(vt).unwrap_or(bits).min(bits);
                        self.note_width(n, w);
                        self.line(d, &format!("{place} = set_bits({place}, 0, {w}, {i});"));
                    }
                    Store::Wide(place) => {
                        let w =
                            ty_bits(vt).ok_or("a value of unknown width into a data register")?;
                        self.wide_use(place, w, true);
                        let i = to_bits(v, vt);
                        self.line(d, &format!("wide_set(&mut {place}, 0, {w}, {i});"));
                    }
                    Store::Local(t) => {
                        let c = convert(v, vt, t);
                        self.line(d, &format!("{} = {c};", Self::local_name(n)));
                    }
                    Store::Array(..) => return Err(format!("assigning array {n} whole")),
                },
            },
            Expr::Field(base, f) => {
                let t = suffix_ty(f).ok_or_else(|| format!("field .{f}"))?;
                if let Expr::Index(m, a) = &**base {
                    if matches!(&**m, Expr::Var(x) if x == "MEM") {
                        let (av, at) = self.expr(a)?;
                        let bytes = ty_bits(t).unwrap_or(32) / 8;
                        let bits = to_bits(&convert(v, vt, t), t);
                        self.facts.writes.insert("MEM");
                        self.line(
                            d,
                            &format!(
                                "m.store({} as u64, {bytes}, ({bits}) as u64);",
                                to_bits(&av, at)
                            ),
                        );
                        return Ok(());
                    }
                }
                if let Expr::Var(n) = &**base {
                    match n.as_str() {
                        "SCC" => return self.assign(d, &Expr::Var("SCC".into()), v, vt),
                        "VCC" | "EXEC" | "PC" => {
                            let bits = to_bits(&convert(v, vt, t), t);
                            let w = ty_bits(t).unwrap_or(64);
                            let place = match n.as_str() {
                                "VCC" => {
                                    self.facts.writes.insert("VCC");
                                    "c.vcc_out"
                                }
                                "EXEC" => {
                                    self.facts.writes.insert("EXEC");
                                    "c.exec"
                                }
                                _ => {
                                    self.facts.writes.insert("PC");
                                    "c.pc"
                                }
                            };
                            self.line(d, &format!("{place} = set_bits({place}, 0, {w}, {bits});"));
                            return Ok(());
                        }
                        _ => {}
                    }
                    match self.store_of(n)? {
                        Store::Raw(place, _) => {
                            let w = ty_bits(t).unwrap_or(64);
                            self.note_width(n, w);
                            let bits = to_bits(&convert(v, vt, t), t);
                            self.line(d, &format!("{place} = set_bits({place}, 0, {w}, {bits});"));
                        }
                        Store::Wide(place) => {
                            let w = ty_bits(t).unwrap_or(32);
                            self.wide_use(place, w, true);
                            let bits = to_bits(&convert(v, vt, t), t);
                            self.line(d, &format!("wide_set(&mut {place}, 0, {w}, {bits});"));
                        }
                        Store::Local(lt) => {
                            // Typed write into a local: through its bits.
                            let bits = to_bits(&convert(v, vt, t), t);
                            let w = ty_bits(t).unwrap_or(64);
                            let cur = to_bits(&Self::local_name(n), lt);
                            let new = format!("(set_bits({cur} as u64, 0, {w}, {bits}) as i128)");
                            self.line(
                                d,
                                &format!("{} = {};", Self::local_name(n), from_bits(&new, lt)),
                            );
                        }
                        Store::Array(..) => return Err("typed write to an array".into()),
                    }
                    return Ok(());
                }
                // `x[i].t = v`, `x[hi:lo].t = v`
                match &**base {
                    Expr::Index(..) | Expr::Slice(..) => {
                        let bits = to_bits(&convert(v, vt, t), t);
                        self.assign(d, base, &bits, Ty::Int(ty_bits(t), false))
                    }
                    _ => Err("assignment to this field".into()),
                }?;
            }
            Expr::Index(base, i) => {
                if matches!(&**base, Expr::Var(n) if n == "MEM") {
                    let w = ty_bits(vt)
                        .filter(|b| [8, 16, 32, 64].contains(b))
                        .unwrap_or(32);
                    let sfx = format!("b{w}");
                    return self.assign(d, &Expr::Field(Box::new(target.clone()), sfx), v, vt);
                }
                if let Expr::Var(n) = &**base {
                    if let Some(Store::Array(t, len)) = self.locals.get(n).copied() {
                        let (iv, _) = self.expr(i)?;
                        let c = convert(v, vt, t);
                        self.line(
                            d,
                            &format!("{}[(({iv}) as usize) % {len}] = {c};", Self::local_name(n)),
                        );
                        return Ok(());
                    }
                }
                // A bit: `D0.u64[laneId] = b`, `EXEC.u64[laneId] = b`, `VCC.u64[laneId] = b`.
                let (iv, _) = self.expr(i)?;
                let b = convert(v, vt, Ty::Bool);
                let inner = match &**base {
                    Expr::Field(x, _) => &**x,
                    x => x,
                };
                if let Expr::Var(n) = inner {
                    let place: String = match n.as_str() {
                        "VCC" => {
                            self.facts.writes.insert("VCC");
                            "c.vcc_out".into()
                        }
                        "EXEC" => {
                            self.facts.writes.insert("EXEC");
                            "c.exec_out".into()
                        }
                        "D0" => {
                            self.facts.d0_mask = true;
                            self.facts.writes.insert("D0");
                            self.note_width("D0", 64);
                            "c.d[0]".into()
                        }
                        "D1" => {
                            self.facts.d1_mask = true;
                            self.facts.writes.insert("D1");
                            self.note_width("D1", 64);
                            "c.d[1]".into()
                        }
                        "SCC" => {
                            return self.assign(d, inner, v, vt);
                        }
                        _ => match self.store_of(n)? {
                            Store::Local(lt) => {
                                let cur = to_bits(&Self::local_name(n), lt);
                                let new = format!(
                                    "(set_bits({cur} as u64, (({iv}) as u32) & 63, 1, {b} as i128) as i128)"
                                );
                                self.line(
                                    d,
                                    &format!("{} = {};", Self::local_name(n), from_bits(&new, lt)),
                                );
                                return Ok(());
                            }
                            Store::Raw(place, _) => place.to_string(),
                            _ => return Err(format!("bit write to {n}")),
                        },
                    };
                    self.line(d, &format!("set_lane(&mut {place}, ({iv}) as u32, {b});"));
                    return Ok(());
                }
                return Err("bit write to an expression".into());
            }
            Expr::Slice(base, hi, lo) => {
                let (Some(h), Some(l)) = (Self::const_of(hi), Self::const_of(lo)) else {
                    return Err("assignment to a slice of variable bounds".into());
                };
                if h < l {
                    // Reversed: `D0.u32[31 : 0] = S0.u32[0 : 31]` writes as given.
                    return Err("assignment to a reversed slice".into());
                }
                let w = h - l + 1;
                let bits = to_bits(v, vt);
                let inner = match &**base {
                    Expr::Field(x, _) => &**x,
                    x => x,
                };
                let Expr::Var(n) = inner else {
                    return Err("slice assignment to an expression".into());
                };
                match n.as_str() {
                    "VCC" | "EXEC" | "SCC" | "PC" => return Err(format!("slice of {n}")),
                    _ => {}
                }
                match self.store_of(n)? {
                    Store::Raw(place, _) => {
                        self.note_width(n, h + 1);
                        self.line(
                            d,
                            &format!("{place} = set_bits({place}, {l}, {w}, {bits});"),
                        );
                    }
                    Store::Wide(place) => {
                        self.wide_use(place, h + 1, true);
                        self.line(d, &format!("wide_set(&mut {place}, {l}, {w}, {bits});"));
                    }
                    Store::Local(lt) => {
                        let cur = to_bits(&Self::local_name(n), lt);
                        if ty_bits(lt).unwrap_or(64) > 64 || h >= 64 {
                            return Err("slice of a wide local".into());
                        }
                        let new = format!("(set_bits({cur} as u64, {l}, {w}, {bits}) as i128)");
                        self.line(
                            d,
                            &format!("{} = {};", Self::local_name(n), from_bits(&new, lt)),
                        );
                    }
                    Store::Array(..) => return Err("slice of an array".into()),
                }
            }
            Expr::Concat(parts) => {
                // `{ D1.u1, D0.u64 } = v`: the last part takes the low bits.
                let tmp = self.fresh();
                let i = convert(v, vt, Ty::Int(None, false));
                self.line(d, &format!("let {tmp}: i128 = {i};"));
                let mut shift = 0u32;
                for p in parts.iter().rev() {
                    let w = match p {
                        Expr::Field(_, f) => suffix_ty(f).and_then(ty_bits),
                        _ => None,
                    }
                    .ok_or("a concatenated target without a typed width")?;
                    let piece = format!("(({tmp} >> {shift}) & {})", mask(w));
                    self.assign(d, p, &piece, Ty::Int(Some(w), false))?;
                    shift += w;
                }
            }
            _ => return Err("assignment target".into()),
        }
        Ok(())
    }

    /// Infers locals' types: declarations, then first assignments.
    fn declare_locals(&mut self, body: &[Stmt]) -> R<()> {
        for s in body {
            match s {
                Stmt::Declare(name, bits, ty, array) => {
                    // A declaration of an operand the interpreter provides
                    // (`declare OFFSET0 : 16'U`) only states its type.
                    if !self.locals.contains_key(name)
                        && (self.store_of(name).is_ok() || self.is_special(name))
                    {
                        continue;
                    }
                    let t = match ty {
                        'U' | 'B' => Ty::Int(Some(*bits), false),
                        'I' => Ty::Int(Some(*bits), true),
                        'F' => Ty::F(*bits),
                        _ => return Err(format!("declared type {ty}")),
                    };
                    if *bits > 127 {
                        return Err(format!("a {bits}-bit local"));
                    }
                    let st = match array {
                        Some(n) => Store::Array(t, *n),
                        None => Store::Local(t),
                    };
                    self.locals.insert(name.clone(), st);
                }
                Stmt::Assign(targets, _, value) => {
                    for t in targets {
                        if let Expr::Var(n) = t {
                            if self.store_of(n).is_err() && !self.is_special(n) {
                                let (_, vt) = self.expr(value)?;
                                let vt = match vt {
                                    Ty::Int(None, s) => Ty::Int(Some(64), s),
                                    other => other,
                                };
                                self.locals.insert(n.clone(), Store::Local(vt));
                            }
                        }
                        // `tmp[31 : 16].f16 = ...` before any declaration: a 64-bit local.
                        if let Some(n) = Self::root_var(t) {
                            if self.store_of(&n).is_err() && !self.is_special(&n) {
                                self.locals
                                    .insert(n, Store::Local(Ty::Int(Some(64), false)));
                            }
                        }
                    }
                }
                Stmt::If(arms, otherwise) => {
                    for (_, b) in arms {
                        self.declare_locals(b)?;
                    }
                    if let Some(b) = otherwise {
                        self.declare_locals(b)?;
                    }
                }
                Stmt::For(v, _, _, b) => {
                    self.locals
                        .insert(v.clone(), Store::Local(Ty::Int(Some(32), true)));
                    self.declare_locals(b)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn root_var(e: &Expr) -> Option<String> {
        match e {
            Expr::Var(n) => Some(n.clone()),
            Expr::Field(b, _) | Expr::Index(b, _) | Expr::Slice(b, _, _) => Self::root_var(b),
            _ => None,
        }
    }

    fn is_special(&self, n: &str) -> bool {
        matches!(n, "SCC" | "VCC" | "EXEC" | "PC" | "MEM" | "VGPR" | "SGPR")
    }

    fn stmts(&mut self, d: usize, body: &[Stmt]) -> R<()> {
        for s in body {
            match s {
                Stmt::Declare(..) => {}
                Stmt::Break => self.line(d, "break;"),
                Stmt::Return(e) => {
                    let (v, t) = self.expr(e)?;
                    let i = to_bits(&v, t);
                    self.line(d, &format!("return {i};"));
                }
                Stmt::Lambda(name, params, body) => {
                    // A closure of i128 parameters returning i128, with its own locals.
                    let outer = std::mem::take(&mut self.locals);
                    for p in params {
                        self.locals
                            .insert(p.clone(), Store::Local(Ty::Int(None, false)));
                    }
                    self.declare_locals(body)?;
                    let ps: Vec<String> = params
                        .iter()
                        .map(|p| format!("{}: i128", Self::local_name(p)))
                        .collect();
                    self.line(d, &format!("let f_{name} = |{}| -> i128 {{", ps.join(", ")));
                    let inner: Vec<(String, Store)> = self
                        .locals
                        .iter()
                        .filter(|(k, _)| !params.contains(k))
                        .map(|(k, v)| (k.clone(), *v))
                        .collect();
                    for (n, st) in inner {
                        let l = Self::local_name(&n);
                        match st {
                            Store::Local(t) => self.line(
                                d + 1,
                                &format!("let mut {l}: {} = {};", rust_ty(t), zero_of(t)),
                            ),
                            Store::Array(t, len) => self.line(
                                d + 1,
                                &format!(
                                    "let mut {l}: [{}; {len}] = [{}; {len}];",
                                    rust_ty(t),
                                    zero_of(t)
                                ),
                            ),
                            _ => {}
                        }
                    }
                    self.stmts(d + 1, body)?;
                    self.line(d + 1, "0i128");
                    self.line(d, "};");
                    self.locals = outer;
                    self.lambdas.push(name.clone());
                }
                Stmt::Expr(Expr::Call(n, _)) if matches!(n.as_str(), "s_nop" | "nop") => {}
                Stmt::Expr(e) => return Err(format!("a bare expression statement {e:?}")),
                Stmt::Assign(targets, op, value) => {
                    let (mut v, mut vt) = self.expr(value)?;
                    if let Some(op) = op {
                        let b =
                            Expr::Binary(op, Box::new(targets[0].clone()), Box::new(value.clone()));
                        let (nv, nt) = self.expr(&b)?;
                        v = nv;
                        vt = nt;
                    }
                    let tmp = self.fresh();
                    self.line(d, &format!("let {tmp}: {} = {v};", rust_ty(vt)));
                    for t in targets.iter().rev() {
                        self.assign(d, t, &tmp, vt)?;
                    }
                }
                Stmt::If(arms, otherwise) => {
                    for (i, (c, b)) in arms.iter().enumerate() {
                        let (cv, ct) = self.expr(c)?;
                        let kw = if i == 0 { "if" } else { "} else if" };
                        self.line(d, &format!("{kw} {} {{", convert(&cv, ct, Ty::Bool)));
                        self.stmts(d + 1, b)?;
                    }
                    if let Some(b) = otherwise {
                        self.line(d, "} else {");
                        self.stmts(d + 1, b)?;
                    }
                    self.line(d, "}");
                }
                Stmt::For(var, from, to, b) => {
                    let (fv, ft) = self.expr(from)?;
                    let (tv, tt) = self.expr(to)?;
                    let i = Ty::Int(None, true);
                    let name = Self::local_name(var);
                    self.line(
                        d,
                        &format!(
                            "for {name}_i in ({})..=({}) {{",
                            convert(&fv, ft, i),
                            convert(&tv, tt, i)
                        ),
                    );
                    self.line(d + 1, &format!("{name} = {name}_i;"));
                    self.stmts(d + 1, b)?;
                    self.line(d, "}");
                }
            }
        }
        Ok(())
    }
}

fn zero_of(t: Ty) -> &'static str {
    match t {
        Ty::Int(..) => "0i128",
        Ty::F(64) => "0.0f64",
        Ty::F(_) => "0.0f32",
        Ty::Bool => "false",
    }
}

/// Translates one instruction's pseudocode into the body of a function of
/// `(c: &mut Ctx, m: &mut dyn Mem)`.
pub(crate) fn translate(pcode: &str, vector: bool) -> Result<(String, Facts), String> {
    let body = crate::pcode::parse(pcode).map_err(|e| format!("parse: {e}"))?;
    let mut cx = Cx {
        out: String::new(),
        locals: BTreeMap::new(),
        facts: Facts::default(),
        vector,
        tmp: 0,
        lambdas: Vec::new(),
    };
    cx.declare_locals(&body)?;
    let locals: Vec<(String, Store)> = cx.locals.iter().map(|(k, v)| (k.clone(), *v)).collect();
    for (name, st) in locals {
        let n = Cx::local_name(&name);
        match st {
            Store::Local(t) => {
                let zero = match t {
                    Ty::Int(..) => "0i128",
                    Ty::F(64) => "0.0f64",
                    Ty::F(_) => "0.0f32",
                    Ty::Bool => "false",
                };
                let _ = writeln!(cx.out, "    let mut {n}: {} = {zero};", rust_ty(t));
            }
            // `declare S : 32'B[3]`: the sources, S[i] being Si.
            Store::Array(Ty::Int(Some(bits), _), 3) if name == "S" && bits <= 64 => {
                let m = mask(bits);
                let _ = writeln!(
                    cx.out,
                    "    let mut {n}: [i128; 3] = [(c.s[0] as i128) & {m}, (c.s[1] as i128) & {m}, (c.s[2] as i128) & {m}];"
                );
            }
            Store::Array(t, len) => {
                let zero = match t {
                    Ty::Int(..) => "0i128",
                    Ty::F(64) => "0.0f64",
                    Ty::F(_) => "0.0f32",
                    Ty::Bool => "false",
                };
                let _ = writeln!(
                    cx.out,
                    "    let mut {n}: [{}; {len}] = [{zero}; {len}];",
                    rust_ty(t)
                );
            }
            _ => {}
        }
    }
    cx.stmts(1, &body)?;
    Ok((cx.out, cx.facts))
}
