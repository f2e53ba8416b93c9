//! Itanium C++ names demangled: cpp_demangle, with limits deep enough for
//! the names ptxas writes and two of its faults mended; and the walks over
//! mangled names that the mending and nvlink's spelling (develf-cli's
//! `nvlink_demangle`) share.

/// `_Z3fooi` → `foo(int)`; `None` for names that are not Itanium-mangled
/// or that do not demangle.
pub fn demangle(name: &str) -> Option<String> {
    let fixed = constructor_template_fixed(name);
    demangle_fixed(fixed.as_deref().unwrap_or(name))
}

/// [`demangle`] for a name [`constructor_template_fixed`] has fixed
/// already (or that is no constructor template).
pub fn demangle_fixed(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    // Deeper than cpp_demangle's defaults (96 to parse, 128 to print),
    // which refuse a template nested ten levels in arguments nvlink's
    // demangler prints (sweep30 p311's `deep_fn<PairOf..<Level..<..>>>`, a
    // 458-byte name of 17,847 characters). Still bounded: a hostile name
    // fails to demangle instead of overflowing the stack.
    let parse = cpp_demangle::ParseOptions::default().recursion_limit(256);
    let print = cpp_demangle::DemangleOptions::new().recursion_limit(512);
    let text =
        cpp_demangle::Symbol::new_with_options(name.as_bytes(), &parse).ok()?.demangle_with_options(&print).ok()?;
    Some(special_names_spelled(&declarators_after_prefix_moved(&text)))
}

/// cpp_demangle's spellings of a class's tables, `{vtable(Shape)}`, as
/// c++filt writes them: `vtable for Shape`, `VTT for bn::Bot` (its
/// typeinfo names are written so already).
fn special_names_spelled(text: &str) -> String {
    const SPELLED: [(&str, &str); 2] = [("{vtable(", "vtable for "), ("{vtt(", "VTT for ")];
    for (printed, spelled) in SPELLED {
        if let Some(class) = text.strip_prefix(printed).and_then(|rest| rest.strip_suffix(")}")) {
            return format!("{spelled}{class}");
        }
    }
    text.to_string()
}

/// What cpp_demangle 0.5.1 prints between a nested name's substituted
/// prefix and the rest of the name: the declarator or qualifier of the
/// type the nested name is in.
const MISPLACED: [&str; 5] = ["&&", "*", "&", " const", " volatile"];

/// cpp_demangle 0.5.1 prints a pointer to, a reference to or a qualified
/// nested name whose prefix is a substituted type with the innermost
/// declarator after that prefix: `_Z1kPN2ns1AEPNS0_1BE` prints `k(ns::A*,
/// ns::A*::B)` where c++filt (and nvlink) have `ns::A::B*` (session 49's
/// probe f.cu, `PKNS0_1BE` gives `ns::A const::B*`). No C++ type has a
/// declarator before `::`, so each one found there is moved to the end of
/// the qualified name it interrupts.
fn declarators_after_prefix_moved(text: &str) -> String {
    // Each move copies the text: a hostile name's thousands of them would
    // take quadratic time. A real one has a few.
    const MOST_MOVES: usize = 64;
    let mut text = text.to_string();
    let mut from = 0;
    let mut moves = 0;
    while let Some(found) = text.get(from..).and_then(|rest| rest.find("::")) {
        if moves == MOST_MOVES {
            break;
        }
        let scope = from + found;
        from = scope + 2;
        let before = &text[..scope];
        let Some(declarator) = MISPLACED.iter().find(|d| {
            before
                .strip_suffix(**d)
                .and_then(|b| b.chars().next_back())
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '>')
        }) else {
            continue;
        };
        let Some(end) = qualified_name_end(&text, scope + 2) else { continue };
        let start = scope - declarator.len();
        text = format!("{}{}{declarator}{}", &text[..start], &text[scope..end], &text[end..]);
        from = start;
        moves += 1;
    }
    text
}

/// Where the qualified name continuing at `at` (after a `::`) ends: names,
/// their template arguments, further `::`.
fn qualified_name_end(text: &str, mut at: usize) -> Option<usize> {
    let b = text.as_bytes();
    loop {
        let name = b.get(at..)?.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
        if name == 0 {
            return None;
        }
        at += name;
        if b.get(at) == Some(&b'<') {
            let mut depth = 0usize;
            loop {
                match b.get(at)? {
                    b'<' => depth += 1,
                    b'>' => {
                        depth -= 1;
                        if depth == 0 {
                            at += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        if !text[at..].starts_with("::") {
            return Some(at);
        }
        at += 2;
    }
}

/// What follows the source names and template arguments that open the
/// nested name of `name` (`_ZN2bn5Limbs` + `CI1..`); None when it is not
/// a nested name or they do not close.
pub fn after_nested_names(name: &str) -> Option<&str> {
    let mut rest = name.strip_prefix("_ZN")?;
    loop {
        if rest.starts_with(|c: char| c.is_ascii_digit()) {
            rest = source_name(rest)?.1;
        } else if rest.starts_with('I') {
            rest = skip_template_args(rest)?;
        } else {
            return Some(rest);
        }
    }
}

/// The source name `<length><identifier>` `text` opens with: the
/// identifier and what follows it.
pub fn source_name(text: &str) -> Option<(&str, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let length: usize = text[..digits].parse().ok()?;
    let end = digits.checked_add(length)?;
    Some((text.get(digits..end)?, text.get(end..)?))
}

/// The constructor or destructor (`C1`, `C2`, `D0`..) a mangled nested
/// name ends in, where the nested name's closing `E` is, and whether the
/// structor has template arguments of its own. Followed
/// through the nested name: source names, each `<length><identifier>`, and
/// template arguments (`thread_group_base<3u>`: `ILj3EE`; sweep27 p282 `-G`),
/// the structor's own included (a constructor template, `C2ILj16E..EE`);
/// anything else (substitutions) is not.
pub fn nested_structor(name: &str) -> Option<(&str, usize, bool)> {
    let rest = after_nested_names(name)?;
    let kind = rest.get(..2).filter(|k| matches!(*k, "C1" | "C2" | "C3" | "D0" | "D1" | "D2"))?;
    let mut after = &rest[2..];
    let own_arguments = after.starts_with('I');
    if own_arguments {
        after = skip_template_args(after)?;
    }
    after.starts_with('E').then(|| (kind, name.len() - after.len(), own_arguments))
}

/// A constructor template's name made readable by `cpp_demangle`, which
/// takes its first parameter for a return type (`_ZN1AC2IiEEi` would print
/// `A::A<int>()`): a `void` return type is put before the parameters,
/// which a constructor does not print.
pub fn constructor_template_fixed(name: &str) -> Option<String> {
    if let Some(inheriting) = inheriting_constructor(name) {
        let at = name.len() - inheriting.parameters.len();
        return (!inheriting.arguments.is_empty()).then(|| format!("{}v{}", &name[..at], &name[at..]));
    }
    let (kind, close, own_arguments) = nested_structor(name)?;
    (kind.starts_with('C') && own_arguments).then(|| format!("{}v{}", &name[..=close], &name[close + 1..]))
}

/// The parts of an inheriting constructor's name (`using Base::Base;`,
/// `_ZN2bn5LimbsCI1NS_8LimbBaseEEj`).
#[derive(Debug, Clone, Copy)]
pub struct InheritingConstructor<'n> {
    /// `_ZN` and the class's names: `_ZN2bn5Limbs`.
    pub prefix: &'n str,
    /// `CI1` (the complete object's), not `CI2` (a base object's).
    pub complete: bool,
    /// The base class, mangled: `NS_8LimbBaseE`.
    pub base: &'n str,
    /// A constructor template's own arguments, `I..E`, or nothing
    /// (libcu++'s `optional` bases: `CI1NS1_24__optional_destruct_baseIi
    /// Lb1EEEIJRiEEE`).
    pub arguments: &'n str,
    /// The parameters, after the nested name's `E`: `j`.
    pub parameters: &'n str,
}

/// `name` read as an inheriting constructor's, if it is one.
pub fn inheriting_constructor(name: &str) -> Option<InheritingConstructor<'_>> {
    let rest = after_nested_names(name)?;
    let complete = match rest.get(..3)? {
        "CI1" => true,
        "CI2" => false,
        _ => return None,
    };
    let prefix = &name[..name.len() - rest.len()];
    // The base: a nested name, a name or a substitution, with arguments.
    let base_text = &rest[3..];
    let after_base = match *base_text.as_bytes().first()? {
        b'N' => skip_to_close(base_text, 0)?,
        first => {
            let after = if first == b'S' { &base_text[base_text.find('_')? + 1..] } else { source_name(base_text)?.1 };
            // One argument list after a plain name is the constructor's
            // (`_ZN1DCI11BIRiEEiOT_`: `B`'s template constructor, nvlink's
            // `D::B(int, T1 &&)`); the first of two is the base's.
            let arguments_follow = after.starts_with('I') && skip_template_args(after)?.starts_with('I');
            if arguments_follow { skip_template_args(after)? } else { after }
        }
    };
    let base = &base_text[..base_text.len() - after_base.len()];
    let (arguments, after) = match after_base.strip_prefix('I') {
        Some(_) => {
            let after = skip_template_args(after_base)?;
            (&after_base[..after_base.len() - after.len()], after)
        }
        None => ("", after_base),
    };
    let parameters = after.strip_prefix('E')?;
    Some(InheritingConstructor { prefix, complete, base, arguments, parameters })
}

impl InheritingConstructor<'_> {
    /// Whether the base is a nested name (`N..E`), after which nvlink
    /// prints the constructor's own arguments; after a plain name it does
    /// not.
    pub fn nested_base(&self) -> bool {
        self.base.starts_with('N')
    }
}

/// `text` (starting with a template argument list's `I`) after the list's
/// closing `E`: names are skipped by their length, `I`, `J`, `L`, `X` and
/// `N` open what an `E` closes. None when it does not close.
pub fn skip_template_args(text: &str) -> Option<&str> {
    skip_to_close(text, 0)
}

/// [`skip_template_args`] from inside `depth` open lists.
pub fn skip_to_close(text: &str, depth: usize) -> Option<&str> {
    skip_to_close_nested(text, depth, 0)
}

/// [`skip_to_close`] inside `nesting` enumeration literals' types, which
/// it reads by calling itself; bounded.
fn skip_to_close_nested(text: &str, depth: usize, nesting: usize) -> Option<&str> {
    if nesting > 16 {
        return None;
    }
    let b = text.as_bytes();
    let (mut depth, mut i) = (depth, 0usize);
    while i < b.len() {
        match b[i] {
            // A literal of an enumeration (`LNS1_20__select_constructorE1E`,
            // `L9cgx_scope1E`, `LS9_0E`): its type, then its value, whose
            // digits are not a name's length (libcu++'s tuple constructor).
            b'L' if matches!(b.get(i + 1), Some(b'N' | b'S' | b'1'..=b'9')) => {
                let type_end = match b[i + 1] {
                    b'N' => text.len() - skip_to_close_nested(&text[i + 1..], 0, nesting + 1)?.len(),
                    b'S' => i + 1 + b[i + 1..].iter().position(|&c| c == b'_')? + 1,
                    _ => {
                        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                        let length: usize = text[i + 1..i + 1 + digits].parse().ok()?;
                        i.checked_add(1 + digits)?.checked_add(length)?
                    }
                };
                i = type_end + b.get(type_end..)?.iter().position(|&c| c == b'E')? + 1;
                continue;
            }
            b'0'..=b'9' => {
                let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                let length: usize = text[i..i + digits].parse().ok()?;
                i = i.checked_add(digits)?.checked_add(length)?;
                continue;
            }
            // A literal of a builtin type (`Lj16E`, `Lb0E`): its value is
            // not a name's length.
            b'L' if b.get(i + 1).is_some_and(|t| t.is_ascii_lowercase() && *t != b'u') => {
                i += b[i..].iter().position(|&c| c == b'E')? + 1;
                continue;
            }
            // Numbers that are not lengths: substitutions and template
            // parameters (`S0_`, `T1_`), vector and array sizes (`Dv4_`, `A8_`).
            b'S' | b'T' | b'A'
                if b.get(i + 1).is_some_and(|c| *c == b'_' || c.is_ascii_digit() || c.is_ascii_uppercase()) =>
            {
                i += b[i..].iter().position(|&c| c == b'_')? + 1;
                continue;
            }
            b'D' if b.get(i + 1) == Some(&b'v') => {
                i += b[i..].iter().position(|&c| c == b'_')? + 1;
                continue;
            }
            // `J` opens an argument pack (`IJRfRiEE`: a variadic
            // constructor template's; sweep29 p300, `repro/cg-demangle`).
            b'I' | b'J' | b'L' | b'X' | b'N' => depth += 1,
            b'E' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return text.get(i + 1..);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::demangle;

    /// c++filt's (GNU libiberty's) readings of the names cpp_demangle
    /// 0.5.1 misprints or fails on.
    #[test]
    fn a_declarator_after_a_substituted_prefix_goes_after_the_name() {
        for (mangled, expected) in [
            ("_Z1kPN2ns1AEPNS0_1BE", "k(ns::A*, ns::A::B*)"),
            ("_Z1kPN2ns1AEPKNS0_1BE", "k(ns::A*, ns::A::B const*)"),
            ("_Z1kPN2ns1AERNS0_1BE", "k(ns::A*, ns::A::B&)"),
            ("_Z1kPN2ns1AEPPNS0_1BE", "k(ns::A*, ns::A::B**)"),
            ("_Z1kPN2ns1AEPNS0_1BIiEE", "k(ns::A*, ns::A::B<int>*)"),
            ("_Z1kRN2ns1AEPNS0_1BE", "k(ns::A&, ns::A::B*)"),
            ("_Z1kPN2ns1AEPNS0_1BIiE1CE", "k(ns::A*, ns::A::B<int>::C*)"),
            ("_Z1kPN2ns1AES1_PNS0_1BE", "k(ns::A*, ns::A*, ns::A::B*)"),
            ("_Z1kPN2ns1AEPNS_1AE", "k(ns::A*, ns::A*)"),
            // A constructor template, an inheriting one (libcu++'s `pair`,
            // `optional` bases): cpp_demangle took the first parameter for
            // a return type.
            (
                "_ZN4cuda3std3__411__pair_baseIifLb0EEC1IRiRfEEOT_OT0_",
                "cuda::std::__4::__pair_base<int, float, false>::__pair_base<int&, float&>(int&, float&)",
            ),
            ("_ZN2bn3MidCI2NS_2VBEEi", "bn::Mid::VB(int)"),
            ("_ZTV3Box", "vtable for Box"),
            ("_ZTTN2bn3BotE", "VTT for bn::Bot"),
        ] {
            assert_eq!(demangle(mangled).as_deref(), Some(expected), "{mangled}");
        }
    }
}
