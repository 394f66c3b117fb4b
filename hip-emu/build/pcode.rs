//! The pseudocode language of AMD's ISA documents: a lexer and a parser
//! into a small syntax tree. What the parser does not understand is an
//! error with the position, so the instruction is reported as not
//! implemented rather than guessed.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    /// An integer literal: value, size in bits (`16'4`, `0x0LL`), signedness.
    Int(u128, Option<u32>, bool),
    /// A float literal: value, size in bits (`1.0F` is 32; `1.0` is 64).
    Float(f64, u32),
    /// A sized cast: `32'I(`: bits and the type letter; the `(` follows.
    Cast(u32, char),
    Sym(&'static str),
    Newline,
}

const SYMS: [&str; 39] = [
    "<<=", ">>=", "<>", "**", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=",
    "|=", "&=", "^=", "/=", "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<", ">", "=", "?",
    ":", ";", ",", ".", "(", ")",
];
const BRACKETS: [&str; 4] = ["[", "]", "{", "}"];

pub(crate) fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c == '/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == '\n' {
            out.push(Tok::Newline);
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(src[s..i].to_string()));
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            let hex = c == '0' && matches!(b.get(i + 1), Some(b'x' | b'X'));
            if hex {
                i += 2;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
            } else {
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let mut is_float = false;
            if !hex
                && i < b.len()
                && b[i] == b'.'
                && b.get(i + 1).is_some_and(|d| d.is_ascii_digit())
            {
                is_float = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if !hex && i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    is_float = true;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text = &src[s..i];
            if is_float {
                let v: f64 = text.parse().map_err(|_| format!("bad float {text}"))?;
                let mut bits = 64;
                if i < b.len() && b[i] == b'F' {
                    bits = 32;
                    i += 1;
                }
                out.push(Tok::Float(v, bits));
                continue;
            }
            let value = if hex {
                u128::from_str_radix(&text[2..], 16)
            } else {
                text.parse::<u128>()
            }
            .map_err(|_| format!("bad number {text}"))?;
            // A size prefix: `16'4`, `1'0U`, or a cast `32'I(`.
            if i < b.len() && b[i] == b'\'' {
                i += 1;
                let bits = value as u32;
                let n = b.get(i).copied().unwrap_or(0) as char;
                if n.is_ascii_digit() {
                    let s2 = i;
                    let h2 = n == '0' && matches!(b.get(i + 1), Some(b'x'));
                    if h2 {
                        i += 2;
                        while i < b.len() && b[i].is_ascii_hexdigit() {
                            i += 1;
                        }
                    } else {
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                    // `16'1.0` is a sized float.
                    if i < b.len()
                        && b[i] == b'.'
                        && b.get(i + 1).is_some_and(|d| d.is_ascii_digit())
                    {
                        i += 1;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                        let v: f64 = src[s2..i]
                            .parse()
                            .map_err(|_| "bad sized float".to_string())?;
                        if i < b.len() && b[i] == b'F' {
                            i += 1;
                        }
                        out.push(Tok::Float(v, bits));
                        continue;
                    }
                    let t = &src[s2..i];
                    let v = if h2 {
                        u128::from_str_radix(&t[2..], 16)
                    } else {
                        t.parse::<u128>()
                    }
                    .map_err(|_| format!("bad sized number {t}"))?;
                    let mut signed = false;
                    if i < b.len() && (b[i] == b'U' || b[i] == b'I') {
                        signed = b[i] == b'I';
                        i += 1;
                    }
                    out.push(Tok::Int(v, Some(bits), signed));
                    continue;
                }
                if matches!(n, 'U' | 'I' | 'F' | 'B') {
                    i += 1;
                    out.push(Tok::Cast(bits, n));
                    continue;
                }
                return Err(format!("bad size prefix after {text}'"));
            }
            // Suffixes: U, L, LL, UL, ULL, F (an integer written as float: `2F`?).
            let mut bits = None;
            let mut signed = true;
            let s3 = i;
            while i < b.len() && matches!(b[i], b'U' | b'L') {
                i += 1;
            }
            let suf = &src[s3..i];
            match suf {
                "" => {}
                "U" => {
                    bits = Some(32);
                    signed = false;
                }
                "L" | "LL" => bits = Some(64),
                "UL" | "ULL" => {
                    bits = Some(64);
                    signed = false;
                }
                _ => return Err(format!("bad suffix {suf}")),
            }
            if i < b.len() && b[i] == b'F' {
                i += 1;
                out.push(Tok::Float(value as f64, 32));
                continue;
            }
            out.push(Tok::Int(value, bits, signed));
            continue;
        }
        if let Some(s) = SYMS
            .iter()
            .chain(BRACKETS.iter())
            .find(|s| src[i..].starts_with(**s))
        {
            out.push(Tok::Sym(s));
            i += s.len();
            continue;
        }
        return Err(format!("unexpected character {c:?}"));
    }
    Ok(out)
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    Int(u128, Option<u32>, bool),
    Float(f64, u32),
    Var(String),
    /// `x.u32`
    Field(Box<Expr>, String),
    /// `x[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `x[hi : lo]`
    Slice(Box<Expr>, Box<Expr>, Box<Expr>),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
    /// `32'U(x)`
    Cast(u32, char, Box<Expr>),
    /// `{ hi, lo }`
    Concat(Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stmt {
    /// `a = b = value` (targets, compound operator, value)
    Assign(Vec<Expr>, Option<&'static str>, Expr),
    If(Vec<(Expr, Vec<Stmt>)>, Option<Vec<Stmt>>),
    For(String, Expr, Expr, Vec<Stmt>),
    /// `declare name : 32'U` / `32'B[64]`
    Declare(String, u32, char, Option<u32>),
    Expr(Expr),
    Break,
    /// `return x` inside a lambda.
    Return(Expr),
    /// `NAME = lambda(a, b) ( statements )`: a helper with statements.
    Lambda(String, Vec<String>, Vec<Stmt>),
}

pub(crate) struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

struct P {
    t: Vec<Tok>,
    i: usize,
    /// Expression lambdas (`F = lambda(a, b) (expr)`), inlined at their calls.
    lambdas: Vec<(String, Vec<String>, Expr)>,
}

/// `e` with each variable named in `params` replaced by its argument.
fn substitute(e: &Expr, params: &[String], args: &[Expr]) -> Expr {
    let s = |x: &Expr| Box::new(substitute(x, params, args));
    match e {
        Expr::Var(n) => match params.iter().position(|p| p == n) {
            Some(i) => args[i].clone(),
            None => e.clone(),
        },
        Expr::Field(b, f) => Expr::Field(s(b), f.clone()),
        Expr::Index(b, i) => Expr::Index(s(b), s(i)),
        Expr::Slice(b, h, l) => Expr::Slice(s(b), s(h), s(l)),
        Expr::Unary(o, x) => Expr::Unary(o, s(x)),
        Expr::Binary(o, a, b) => Expr::Binary(o, s(a), s(b)),
        Expr::Ternary(c, a, b) => Expr::Ternary(s(c), s(a), s(b)),
        Expr::Call(n, a) => Expr::Call(
            n.clone(),
            a.iter().map(|x| substitute(x, params, args)).collect(),
        ),
        Expr::Cast(b, t, x) => Expr::Cast(*b, *t, s(x)),
        Expr::Concat(p) => Expr::Concat(p.iter().map(|x| substitute(x, params, args)).collect()),
        Expr::Int(..) | Expr::Float(..) => e.clone(),
    }
}

type R<T> = Result<T, ParseError>;

fn err<T>(s: impl Into<String>) -> R<T> {
    Err(ParseError(s.into()))
}

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.t.get(self.i + k)
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(x)) if *x == s)
    }
    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(x)) if x == s)
    }
    fn eat_sym(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect_sym(&mut self, s: &str) -> R<()> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            err(format!("expected `{s}`, found {:?}", self.peek()))
        }
    }
    fn eat_ident(&mut self, s: &str) -> bool {
        if self.is_ident(s) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn skip_separators(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline) | Some(Tok::Sym(";"))) {
            self.i += 1;
        }
    }

    /// Statements until one of `ends` (an identifier) or the end.
    fn block(&mut self, ends: &[&str]) -> R<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            self.skip_separators();
            match self.peek() {
                None | Some(Tok::Sym(")")) => return Ok(out),
                Some(Tok::Ident(x)) if ends.contains(&x.as_str()) => return Ok(out),
                _ => {}
            }
            out.push(self.stmt()?);
            match self.peek() {
                None | Some(Tok::Newline) | Some(Tok::Sym(";")) | Some(Tok::Sym(")")) => {}
                Some(Tok::Ident(x)) if ends.contains(&x.as_str()) => {}
                Some(t) => return err(format!("expected the end of a statement, found {t:?}")),
            }
        }
    }

    /// Statements up to a `)` at this level (a lambda's body).
    fn block_to_paren(&mut self) -> R<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            self.skip_separators();
            match self.peek() {
                None => return err("a lambda body without its `)`"),
                Some(Tok::Sym(")")) => return Ok(out),
                _ => {}
            }
            out.push(self.stmt()?);
        }
    }

    fn stmt(&mut self) -> R<Stmt> {
        if self.eat_ident("if") {
            let mut arms = Vec::new();
            let cond = self.expr()?;
            self.skip_newlines();
            if !self.eat_ident("then") {
                return err("expected `then`");
            }
            let body = self.block(&["elsif", "else", "endif"])?;
            arms.push((cond, body));
            let mut otherwise = None;
            loop {
                if self.eat_ident("elsif") {
                    let c = self.expr()?;
                    self.skip_newlines();
                    if !self.eat_ident("then") {
                        return err("expected `then`");
                    }
                    let b = self.block(&["elsif", "else", "endif"])?;
                    arms.push((c, b));
                } else if self.eat_ident("else") {
                    otherwise = Some(self.block(&["endif"])?);
                } else if self.eat_ident("endif") {
                    break;
                } else {
                    return err("expected `elsif`, `else` or `endif`");
                }
            }
            return Ok(Stmt::If(arms, otherwise));
        }
        if self.eat_ident("for") {
            let var = match self.peek() {
                Some(Tok::Ident(v)) => v.clone(),
                _ => return err("expected a loop variable"),
            };
            self.i += 1;
            if !self.eat_ident("in") {
                return err("expected `in`");
            }
            let from = self.ternary_no_colon()?;
            self.expect_sym(":")?;
            let to = self.expr()?;
            if !self.eat_ident("do") {
                return err("expected `do`");
            }
            let body = self.block(&["endfor"])?;
            self.eat_ident("endfor");
            return Ok(Stmt::For(var, from, to, body));
        }
        if self.eat_ident("declare") {
            let name = match self.peek() {
                Some(Tok::Ident(v)) => v.clone(),
                _ => return err("expected a name"),
            };
            self.i += 1;
            self.expect_sym(":")?;
            let (bits, ty) = match self.peek() {
                Some(Tok::Cast(b, t)) => (*b, *t),
                Some(Tok::Int(_, Some(b), _)) => (*b, 'B'),
                t => return err(format!("expected a type, found {t:?}")),
            };
            self.i += 1;
            let mut array = None;
            if self.eat_sym("[") {
                match self.peek() {
                    Some(Tok::Int(n, _, _)) => array = Some(*n as u32),
                    _ => return err("expected an array length"),
                }
                self.i += 1;
                self.expect_sym("]")?;
            }
            return Ok(Stmt::Declare(name, bits, ty, array));
        }
        if self.eat_ident("break") {
            return Ok(Stmt::Break);
        }
        if self.eat_ident("return") {
            return Ok(Stmt::Return(self.expr()?));
        }
        // `NAME = lambda(a, b) (expression)`
        if let (Some(Tok::Ident(name)), Some(Tok::Sym("=")), Some(Tok::Ident(l))) = (
            self.peek().cloned(),
            self.peek_at(1).cloned(),
            self.peek_at(2).cloned(),
        ) {
            if l == "lambda" {
                self.i += 3;
                self.expect_sym("(")?;
                let mut params = Vec::new();
                loop {
                    match self.peek().cloned() {
                        Some(Tok::Ident(p)) => {
                            params.push(p);
                            self.i += 1;
                        }
                        _ => return err("expected a lambda parameter"),
                    }
                    if self.eat_sym(")") {
                        break;
                    }
                    self.expect_sym(",")?;
                }
                self.skip_newlines();
                self.expect_sym("(")?;
                self.skip_newlines();
                let start = self.i;
                if let Ok(body) = self.expr() {
                    self.skip_newlines();
                    if self.eat_sym(")") {
                        self.lambdas.push((name, params, body));
                        return Ok(Stmt::Expr(Expr::Call("nop".into(), Vec::new())));
                    }
                }
                // A body of statements, up to the `)` that closes it.
                self.i = start;
                let body = self.block_to_paren()?;
                self.expect_sym(")")?;
                return Ok(Stmt::Lambda(name, params, body));
            }
        }
        let first = self.expr()?;
        let compound = ["+=", "-=", "*=", "|=", "&=", "^=", "<<=", ">>=", "/="];
        if let Some(Tok::Sym(s)) = self.peek() {
            if compound.contains(s) {
                let op: &'static str = match *s {
                    "+=" => "+",
                    "-=" => "-",
                    "*=" => "*",
                    "|=" => "|",
                    "&=" => "&",
                    "^=" => "^",
                    "<<=" => "<<",
                    ">>=" => ">>",
                    _ => "/",
                };
                self.i += 1;
                let v = self.expr()?;
                return Ok(Stmt::Assign(vec![first], Some(op), v));
            }
        }
        if self.eat_sym("=") {
            let mut targets = vec![first];
            let mut value = self.expr()?;
            while self.eat_sym("=") {
                targets.push(value);
                value = self.expr()?;
            }
            return Ok(Stmt::Assign(targets, None, value));
        }
        Ok(Stmt::Expr(first))
    }

    fn skip_newlines(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline)) {
            self.i += 1;
        }
    }

    fn expr(&mut self) -> R<Expr> {
        self.ternary()
    }

    /// An expression where a `:` may follow (a slice's or a loop's
    /// bounds): a `?` inside still takes its own `:`.
    fn ternary_no_colon(&mut self) -> R<Expr> {
        self.ternary()
    }

    fn ternary(&mut self) -> R<Expr> {
        let c = self.binary(0)?;
        if self.eat_sym("?") {
            let a = self.ternary()?;
            self.expect_sym(":")?;
            let b = self.ternary()?;
            return Ok(Expr::Ternary(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn binary(&mut self, min: u8) -> R<Expr> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Sym(op)) = self.peek() {
            let op: &'static str = op;
            let prec = match op {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" | "<>" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                "**" => 11,
                _ => break,
            };
            if prec < min {
                break;
            }
            self.i += 1;
            let op = if op == "<>" { "!=" } else { op };
            let rhs = if op == "**" {
                self.binary(prec)?
            } else {
                self.binary(prec + 1)?
            };
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R<Expr> {
        for op in ["-", "~", "!", "+"] {
            if self.eat_sym(op) {
                let e = self.unary()?;
                if op == "+" {
                    return Ok(e);
                }
                let op: &'static str = match op {
                    "-" => "-",
                    "~" => "~",
                    _ => "!",
                };
                return Ok(Expr::Unary(op, Box::new(e)));
            }
        }
        self.postfix()
    }

    fn postfix(&mut self) -> R<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.is_sym(".") {
                if let Some(Tok::Ident(f)) = self.peek_at(1) {
                    let f = f.clone();
                    self.i += 2;
                    e = Expr::Field(Box::new(e), f);
                    continue;
                }
                return err("expected a field after `.`");
            }
            if self.eat_sym("[") {
                let a = self.ternary_no_colon()?;
                if self.eat_sym(":") {
                    let b = self.expr()?;
                    self.expect_sym("]")?;
                    e = Expr::Slice(Box::new(e), Box::new(a), Box::new(b));
                } else {
                    self.expect_sym("]")?;
                    e = Expr::Index(Box::new(e), Box::new(a));
                }
                continue;
            }
            break;
        }
        Ok(e)
    }

    fn primary(&mut self) -> R<Expr> {
        let t = self.peek().cloned();
        match t {
            Some(Tok::Int(v, b, s)) => {
                self.i += 1;
                Ok(Expr::Int(v, b, s))
            }
            Some(Tok::Float(v, b)) => {
                self.i += 1;
                Ok(Expr::Float(v, b))
            }
            Some(Tok::Cast(bits, ty)) => {
                self.i += 1;
                self.expect_sym("(")?;
                let e = self.expr()?;
                self.expect_sym(")")?;
                Ok(Expr::Cast(bits, ty, Box::new(e)))
            }
            Some(Tok::Ident(name)) => {
                self.i += 1;
                if self.eat_sym("(") {
                    let mut args = Vec::new();
                    if !self.eat_sym(")") {
                        loop {
                            args.push(self.expr()?);
                            if self.eat_sym(")") {
                                break;
                            }
                            self.expect_sym(",")?;
                        }
                    }
                    if let Some((_, params, body)) = self.lambdas.iter().find(|l| l.0 == name) {
                        if params.len() != args.len() {
                            return err(format!("{name} takes {} arguments", params.len()));
                        }
                        return Ok(substitute(body, params, &args));
                    }
                    return Ok(Expr::Call(name, args));
                }
                Ok(Expr::Var(name))
            }
            Some(Tok::Sym("(")) => {
                self.i += 1;
                let e = self.expr()?;
                self.expect_sym(")")?;
                Ok(e)
            }
            Some(Tok::Sym("{")) => {
                self.i += 1;
                let mut parts = Vec::new();
                loop {
                    parts.push(self.expr()?);
                    if self.eat_sym("}") {
                        break;
                    }
                    self.expect_sym(",")?;
                }
                Ok(Expr::Concat(parts))
            }
            t => err(format!("unexpected {t:?}")),
        }
    }
}

pub(crate) fn parse(src: &str) -> Result<Vec<Stmt>, ParseError> {
    let t = lex(src).map_err(ParseError)?;
    let mut p = P {
        t,
        i: 0,
        lambdas: Vec::new(),
    };
    let body = p.block(&[])?;
    if p.i < p.t.len() {
        return err(format!("unparsed tail at {:?}", p.peek()));
    }
    Ok(body)
}
