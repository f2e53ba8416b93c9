//! Itanium C++ names demangled: cpp_demangle, with limits deep enough for
//! the names ptxas writes and one of its printing faults mended.

/// `_Z3fooi` → `foo(int)`; `None` for names that are not Itanium-mangled
/// or that do not demangle.
pub fn demangle(name: &str) -> Option<String> {
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
    Some(declarators_after_prefix_moved(&text))
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

#[cfg(test)]
mod tests {
    use super::demangle;

    /// c++filt's (GNU libiberty's) readings of the names cpp_demangle
    /// 0.5.1 misprints.
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
        ] {
            assert_eq!(demangle(mangled).as_deref(), Some(expected), "{mangled}");
        }
    }
}
