//! Reads the four data modules of one ISA (`enum.py`, `ins.py`,
//! `operands.py`, `str_pcode.py`) as text. They are generated files of a
//! fixed shape (class bodies of `NAME = value` lines, dict literals), so a
//! line reader suffices; anything of another shape is an error naming the
//! line, never skipped.

use std::collections::BTreeMap;

/// One ISA's data.
#[derive(Debug, Default)]
pub(crate) struct Isa {
    /// `VOP1Op` -> [(`V_MOV_B32_E32`, 1), ...]
    pub enums: BTreeMap<String, Vec<(String, u32)>>,
    /// The encodings, in file order, fields resolved through inheritance.
    pub formats: Vec<Format>,
    /// (`VOP1Op`, `V_MOV_B32_E32`) -> its operands.
    pub operands: BTreeMap<(String, String), Vec<Operand>>,
    /// (`VOP1Op`, `V_MOV_B32_E32`) -> its pseudocode.
    pub pcode: BTreeMap<(String, String), String>,
    /// (`VOP2Op`, `V_CNDMASK_B32`) -> `V_CNDMASK_B32_E32`: other names of members.
    pub aliases: BTreeMap<(String, String), String>,
}

impl Isa {
    /// The member a name of enum `e` stands for.
    pub(crate) fn resolve<'a>(&'a self, e: &str, name: &'a str) -> &'a str {
        self.aliases
            .get(&(e.to_string(), name.to_string()))
            .map(String::as_str)
            .unwrap_or(name)
    }
}

/// One encoding class of `ins.py`.
#[derive(Debug, Clone)]
pub(crate) struct Format {
    pub name: String,
    /// The class it extends (`VOP1` for `VOP1_LIT`), if any.
    pub base: Option<String>,
    pub fields: Vec<Field>,
}

/// One bit field of an encoding.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    pub name: String,
    /// `BitField`, `FixedBitField`, `EnumBitField`, `VGPRField`, ...
    pub kind: String,
    pub hi: u32,
    pub lo: u32,
    /// The value of a `FixedBitField`.
    pub fixed: Option<u64>,
    /// The enum of an `EnumBitField`.
    pub enum_name: Option<String>,
    /// The ops an `EnumBitField` allows in this encoding (all when `None`).
    pub allowed: Option<Vec<String>>,
    /// `default=` as written.
    pub default: Option<String>,
}

/// One operand of an instruction: `(Fmt, bits, OpType)` of `operands.py`.
#[derive(Debug, Clone)]
pub(crate) struct Operand {
    pub field: String,
    pub fmt: String,
    pub bits: u32,
}

pub(crate) fn parse(
    enum_py: &str,
    ins_py: &str,
    operands_py: &str,
    pcode_py: &str,
) -> Result<Isa, String> {
    let mut isa = Isa::default();
    parse_enums(enum_py, &mut isa)?;
    parse_formats(ins_py, &mut isa)?;
    parse_operands(operands_py, &mut isa)?;
    parse_pcode(pcode_py, &mut isa)?;
    Ok(isa)
}

fn parse_enums(text: &str, isa: &mut Isa) -> Result<(), String> {
    let mut current: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("class ") {
            let name = rest.split('(').next().unwrap_or("").trim().to_string();
            isa.enums.entry(name.clone()).or_default();
            current = Some(name);
        } else if let (Some(c), Some(body)) = (&current, line.strip_prefix("  ")) {
            let (k, v) = body
                .split_once(" = ")
                .ok_or_else(|| format!("enum.py:{}: not `NAME = value`: {line}", n + 1))?;
            let v = v.trim();
            // `V_NOP = V_NOP_E32`: an alias of a member already listed.
            if v.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                isa.aliases
                    .insert((c.clone(), k.trim().to_string()), v.to_string());
                continue;
            }
            let v: u32 = v
                .parse()
                .map_err(|_| format!("enum.py:{}: value not a number: {line}", n + 1))?;
            isa.enums
                .get_mut(c)
                .unwrap()
                .push((k.trim().to_string(), v));
        } else if !line.starts_with('#') && !line.starts_with("from ") && !line.trim().is_empty() {
            current = None;
        }
    }
    Ok(())
}

/// Splits `a, b, {c, d}, e=f` at top-level commas.
fn split_args(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for ch in s.chars() {
        match ch {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn number(s: &str) -> Option<u64> {
    if let Some(b) = s.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()
    } else if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

fn parse_formats(text: &str, isa: &mut Isa) -> Result<(), String> {
    let mut current: Option<Format> = None;
    let mut done: Vec<Format> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let err = |what: &str| format!("ins.py:{}: {what}: {line}", n + 1);
        if let Some(rest) = line.strip_prefix("class ") {
            if let Some(f) = current.take() {
                done.push(f);
            }
            let (name, base) = rest
                .trim_end_matches(':')
                .split_once('(')
                .ok_or_else(|| err("class without base"))?;
            let base = base.trim_end_matches(')').trim();
            let mut fields = Vec::new();
            let base = if base == "Inst" {
                None
            } else {
                let b = done
                    .iter()
                    .find(|f| f.name == base)
                    .ok_or_else(|| err("base class not defined before"))?;
                fields = b.fields.clone();
                Some(base.to_string())
            };
            current = Some(Format {
                name: name.trim().to_string(),
                base,
                fields,
            });
        } else if let (Some(fmt), Some(body)) = (current.as_mut(), line.strip_prefix("  ")) {
            let (name, rhs) = body
                .split_once(" = ")
                .ok_or_else(|| err("not `field = Kind(...)`"))?;
            let (kind, args) = rhs.split_once('(').ok_or_else(|| err("not `Kind(...)`"))?;
            let args = split_args(args.strip_suffix(')').ok_or_else(|| err("no `)`"))?);
            let bit = |i: usize| -> Result<u32, String> {
                args.get(i)
                    .and_then(|a| number(a))
                    .map(|v| v as u32)
                    .ok_or_else(|| err("bit position"))
            };
            let mut field = Field {
                name: name.trim().to_string(),
                kind: kind.to_string(),
                hi: bit(0)?,
                lo: bit(1)?,
                fixed: None,
                enum_name: None,
                allowed: None,
                default: None,
            };
            for a in &args[2..] {
                if let Some(d) = a.strip_prefix("default=") {
                    field.default = Some(d.to_string());
                } else if kind == "FixedBitField" {
                    field.fixed = Some(number(a).ok_or_else(|| err("fixed value"))?);
                } else if kind == "EnumBitField" && a.starts_with('{') {
                    let inner = a.trim_start_matches('{').trim_end_matches('}');
                    field.allowed = Some(
                        split_args(inner)
                            .into_iter()
                            .map(|x| x.rsplit('.').next().unwrap_or("").to_string())
                            .collect(),
                    );
                } else if kind == "EnumBitField" {
                    field.enum_name = Some(a.to_string());
                } else {
                    return Err(err("unknown field argument"));
                }
            }
            fmt.fields.retain(|f| f.name != field.name);
            fmt.fields.push(field);
        } else if !line.starts_with(' ') {
            if let Some(f) = current.take() {
                done.push(f);
            }
        }
    }
    if let Some(f) = current.take() {
        done.push(f);
    }
    isa.formats = done;
    Ok(())
}

fn op_key(s: &str) -> Option<(String, String)> {
    let (e, o) = s.trim().split_once('.')?;
    Some((e.to_string(), o.to_string()))
}

fn parse_operands(text: &str, isa: &mut Isa) -> Result<(), String> {
    for (n, line) in text.lines().enumerate() {
        let Some(body) = line.strip_prefix("  ") else {
            continue;
        };
        let err = |what: &str| format!("operands.py:{}: {what}: {line}", n + 1);
        let (key, rest) = body
            .split_once(": {")
            .ok_or_else(|| err("not `Op.NAME: {...}`"))?;
        let (e, name) = op_key(key).ok_or_else(|| err("key"))?;
        // The table names a VOP1/VOP2/VOPC/VOP3 op by its alias
        // (`V_CVT_F32_UBYTE1`), the enum by the member (`..._E32`).
        let key = (e.clone(), isa.resolve(&e, &name).to_string());
        let rest = rest.trim_end_matches(',').trim_end_matches('}');
        let mut ops = Vec::new();
        for entry in split_args(rest) {
            let (f, tuple) = entry.split_once(": ").ok_or_else(|| err("entry"))?;
            let parts = split_args(tuple.trim_start_matches('(').trim_end_matches(')'));
            if parts.len() != 3 {
                return Err(err("operand tuple"));
            }
            ops.push(Operand {
                field: f.trim_matches('"').to_string(),
                fmt: parts[0].trim_start_matches("Fmt.").to_string(),
                bits: parts[1].parse().map_err(|_| err("operand size"))?,
            });
        }
        isa.operands.insert(key, ops);
    }
    Ok(())
}

/// A Python string literal (`'...'` or `"..."`) at the start of `s`: its
/// value and the rest of `s`.
fn py_string(s: &str) -> Option<(String, &str)> {
    let quote = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut chars = s[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    '\\' => out.push('\\'),
                    '\'' => out.push('\''),
                    '"' => out.push('"'),
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            c if c == quote => return Some((out, &s[1 + i + 1..])),
            c => out.push(c),
        }
    }
    None
}

fn parse_pcode(text: &str, isa: &mut Isa) -> Result<(), String> {
    for (n, line) in text.lines().enumerate() {
        let Some(body) = line.strip_prefix("  ") else {
            continue;
        };
        let err = |what: &str| format!("str_pcode.py:{}: {what}", n + 1);
        let (key, rest) = body
            .split_once(": ")
            .ok_or_else(|| err("not `Op.NAME: '...'`"))?;
        let key = op_key(key).ok_or_else(|| err("key"))?;
        let (value, tail) = py_string(rest.trim_start()).ok_or_else(|| err("string literal"))?;
        if tail.trim() != "," {
            return Err(err("text after the string"));
        }
        isa.pcode.insert(key, value);
    }
    Ok(())
}
