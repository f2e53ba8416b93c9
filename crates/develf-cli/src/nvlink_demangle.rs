//! Names as nvlink's demangler prints them (EDG's spelling): cpp_demangle's
//! output respelled, and the mangled name rewritten first where the two
//! demanglers read it differently (rule 13.10).

use develf_link::demangle::{
    InheritingConstructor, constructor_template_fixed, inheriting_constructor, nested_structor, skip_to_close,
    source_name,
};

/// The longest mangled name [`nvlink_spelling`] rewrites (bytes).
const MAX_RESPELLED_NAME: usize = 16 * 1024;

/// Demangles as nvlink prints names: `int *` rather than `int*`, and without
/// the `_INTERNAL_<hash>_..` namespace nvcc gives file-local functions.
pub fn demangle_like_nvlink(name: &str) -> String {
    // A file-local function of a library (`__nv_static_51__<file id>__Z16
    // memset_3d_deviceIj...`, libcudadevrt's kernels) is printed as its
    // `_Z` name demangled (sweep27 p284).
    let name = match name.strip_prefix("__nv_static_").and_then(|rest| rest.find("__Z").map(|at| &rest[at + 1..])) {
        Some(mangled) => mangled,
        None => name,
    };
    if !name.starts_with("_Z") {
        return name.to_string();
    }
    if let Some(text) = thunk_like_nvlink(name) {
        return text;
    }
    // ptxas's local clone of a function (`_Z7h2_poly7__half2$10`) prints as
    // the function (sweep27 p280, p281).
    let name = name.split_once('$').map_or(name, |(base, _)| base);
    if let Some(text) = inheriting_constructor_like_nvlink(name) {
        return text;
    }
    // A deleting destructor (`D0`) is marked (`Shape::~Shape() [deleting]`,
    // sweep27 p280 `-G`).
    let deleting = name.ends_with("D0Ev");
    // A base-object constructor or destructor (`C2`, `D2`) is marked
    // (`Rect::~Rect() [subobject]`, `Rect::Rect(int, float, float)
    // [subobject]`; sweep27 p280).
    let subobject = base_object_structor(name);
    let demangle = develf_link::demangle::demangle_fixed;
    // nvlink's demangler writes a template parameter the signature uses as
    // `T1` (`T1 tmix<int>(T1, T1)`) and an int template argument as `(int)5`
    // (`int wk<(int)5>(int)`): rename them in the mangled name first.
    let fixed = constructor_template_fixed(name);
    let name = fixed.as_deref().unwrap_or(name);
    // The rewrite scans ahead for closing brackets: past some length (no
    // ptxas name comes near) a name is demangled as it is, in bounded time.
    let respelled = (name.len() <= MAX_RESPELLED_NAME).then(|| nvlink_spelling(name)).flatten();
    let Some((text, decltypes)) = respelled
        .and_then(|(m, decltypes)| {
            let decltypes = entity_decltypes_spelled(decltypes, name)?;
            demangle(&m).map(|text| (decltypes_marked(&decltypes, &text), decltypes))
        })
        .or_else(|| demangle(name).map(|text| (text, Vec::new())))
    else {
        return name.to_string();
    };
    // Wherever it stands: after a return type too (`T1 _INTERNAL_<id>::
    // tex2D<float>(...)` prints `T1 tex2D<float>(...)`; sweep27 p284 `-G`).
    // An anonymous namespace is `<unnamed>` (sweep28 p290).
    let text = lambdas_spelled(&without_internal_namespaces(&text)).replace("(anonymous namespace)", "<unnamed>");
    let text = const_first(&text);
    let mut out = String::with_capacity(text.len() + 8);
    let mut previous = ' ';
    for c in text.chars() {
        if matches!(c, '*' | '&') && !matches!(previous, ' ' | '*' | '&' | '(') {
            out.push(' ');
        }
        out.push(c);
        previous = c;
    }
    // A const pointer: `Shape *const *` (sweep27 p280); template argument
    // lists closed together (`reduce<blk::Sum<int>>`; fixtures sco, tl),
    // three too (`barrier<..>>>`; sweep29 p301).
    let mut closed = out.replace("* const", "*const");
    while closed.contains("> >") {
        closed = closed.replace("> >", ">>");
    }
    let closed = unspaced_marks_removed(&closed);
    let out = prefix_references(&own_class_references(&spaced_operators(&closed)))
        .replace(&format!("{NESTED_PARAMETER_MARK} *"), "*")
        .replace(NESTED_PARAMETER_MARK, "")
        .replace("(&) [", "(&)[")
        .replace("(*) [", "(*)[");
    let mut out = decltypes_restored(&decltypes, &array_parameter_sizes_named(&pack_expansions_closed(&out)));
    if deleting {
        out.push_str(" [deleting]");
    }
    if subobject {
        out.push_str(" [subobject]");
    }
    out
}

/// A virtual function's thunk as nvlink's demangler writes it: `Thunk for
/// (offset -8) Circle::name_hash() const` (`_ZThn8_`), `Thunk for (offset
/// 0, virtual offset -24) Mid1::f() const` (`_ZTv0_n24_`), the function
/// demangled as any other (sweep30 p313's multiple inheritance).
fn thunk_like_nvlink(name: &str) -> Option<String> {
    // An offset: digits, `n` before them for a negative one, then `_`.
    let offset = |text: &str| -> Option<(String, usize)> {
        let (sign, digits) = match text.strip_prefix('n') {
            Some(rest) => ("-", rest),
            None => ("", text),
        };
        let n = digits.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || digits.as_bytes().get(n) != Some(&b'_') {
            return None;
        }
        Some((format!("{sign}{}", &digits[..n]), sign.len() + n + 1))
    };
    let (offsets, rest) = if let Some(rest) = name.strip_prefix("_ZTh") {
        let (fixed, used) = offset(rest)?;
        (format!("offset {fixed}"), &rest[used..])
    } else if let Some(rest) = name.strip_prefix("_ZTv") {
        let (fixed, used) = offset(rest)?;
        let (virtual_offset, more) = offset(&rest[used..])?;
        (format!("offset {fixed}, virtual offset {virtual_offset}"), &rest[used + more..])
    } else {
        return None;
    };
    // A thunk of a thunk is no name ptxas writes; refusing it also bounds
    // the recursion below (a hostile `_ZThn1_ThN1_...`).
    if rest.is_empty() || rest.starts_with("Th") || rest.starts_with("Tv") {
        return None;
    }
    Some(format!("Thunk for ({offsets}) {}", demangle_like_nvlink(&format!("_Z{rest}"))))
}

/// A member function of a class template with its references to its own
/// class unspaced ([`own_template_class_references`]). A plain class's
/// (`__half2::__half2(const __half2&)`, `__nv_bfloat162::operator
/// =(__nv_bfloat162&&)`, where another class's is `const __nv_bfloat16 &`;
/// sweep27 p281 `-G`) are [`prefix_references`]' own: the class is met
/// first as the function's scope.
fn own_class_references(text: &str) -> String {
    let Some(open) = parameters_open(text) else { return text.to_string() };
    let function = &text[..open];
    // The class: the qualified name before the function's own, outside
    // template arguments.
    let mut depth = 0usize;
    let mut last_scope = None;
    for (i, c) in function.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ':' if depth == 0 && function[i..].starts_with("::") => last_scope = Some(i),
            _ => {}
        }
    }
    let Some(scope) = last_scope else { return text.to_string() };
    let class = function[..scope].rsplit(' ').next().unwrap_or("");
    if !class.contains('<') {
        return text.to_string();
    }
    own_template_class_references(text).unwrap_or_else(|| text.to_string())
}

/// A parameter that points or refers to a class met first as a scope
/// (`Outer` in `Outer::Inner`, mangled a prefix substitution) unspaced, as
/// nvlink writes it: `f(Outer::Inner, Outer*)` but `g(Outer, Outer::Inner,
/// Outer *)`, where `Outer` was met first as a type; `h(ns::O2::In,
/// ns::O2&, const ns::O2*)` (session 49's probe j.cu). The names are
/// searched in the order they are mangled: the function's name, its return
/// type, the parameters before.
fn prefix_references(text: &str) -> String {
    let Some(open) = parameters_open(text) else { return text.to_string() };
    // The return type ends at the last space outside brackets before the
    // name (not the one in `operator =`).
    let mut depth = 0i32;
    let mut name_start = 0;
    for (i, c) in text[..open].char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ' ' if depth == 0 && !text[..i].ends_with("operator") => name_start = i + 1,
            _ => {}
        }
    }
    let Some(list) = text[open + 1..].strip_suffix(')').or_else(|| text[open + 1..].rsplit_once(')').map(|(l, _)| l))
    else {
        return text.to_string();
    };
    let parameters = top_level_items(list);
    // The return type is one more (`Acc& Acc::add<float>(..)`; session
    // 49's lib4.cu), first in the text. The ranges are in `text`.
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::with_capacity(parameters.len() + 1);
    if name_start > 0 {
        ranges.push(0..name_start - 1);
    }
    ranges.extend(parameters.into_iter().map(|r| open + 1 + r.start..open + 1 + r.end));
    let parameters = ranges;
    let mut out = text.to_string();
    // Back to front, so that earlier ranges stay where they are.
    for range in parameters.into_iter().rev() {
        let parameter = text[range.clone()].trim_start();
        let lead = text[range.clone()].len() - parameter.len();
        let class = parameter.strip_prefix("const ").unwrap_or(parameter);
        let Some(class) = [" &&", " &", " *"].iter().find_map(|d| class.strip_suffix(d)) else { continue };
        if class.is_empty() || class.contains(' ') && !class.contains('<') {
            continue;
        }
        let parameter_at = range.start + lead;
        // The return type is mangled after the function's name.
        let earlier: &[&str] = if range.start < open {
            &[&text[name_start..open]]
        } else {
            &[&text[name_start..open], &text[..name_start], &text[open..parameter_at]]
        };
        if earlier.iter().find_map(|part| first_use_is_scope(part, class)) == Some(true) {
            // The space before the declarator.
            let space = parameter_at + parameter.trim_end_matches(['*', '&']).len() - 1;
            if out.as_bytes().get(space) == Some(&b' ') {
                out.remove(space);
            }
        }
    }
    out
}

/// The items of a printed list (parameters, template arguments): their
/// ranges in `list`, split at the commas outside brackets.
fn top_level_items(list: &str) -> Vec<std::ops::Range<usize>> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(start..i);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(start..list.len());
    items
}

/// Whether the first use of `class` in `text` (a whole name: not part of a
/// longer one) is as a scope, `class::..` or `class<..>`; None when it is
/// not used.
fn first_use_is_scope(text: &str, class: &str) -> Option<bool> {
    let mut from = 0;
    while let Some(found) = text.get(from..)?.find(class) {
        let at = from + found;
        let after = &text[at + class.len()..];
        let whole_before = !text[..at].ends_with(|c: char| is_word_char(c) || c == ':');
        if whole_before && !after.starts_with(is_word_char) {
            // A template's name before its arguments is a scope too (the
            // template prefix `ns::R` of `ns::R<T1>`; session 49's i.cu).
            return Some(after.starts_with("::") || after.starts_with('<'));
        }
        from = at + 1;
    }
    None
}

/// Where a demangled function's parameters open: the first `(` outside
/// template arguments (`Vec<float, (int)4>::operator +=(..)`; sweep33 p342
/// `-G`), an operator's own symbol (`operator <(`, `operator ()(`) skipped.
fn parameters_open(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        if text[i..].starts_with("operator ") && starts_word(text, i) {
            let symbol = text[i + 9..].find(|c: char| c.is_alphanumeric() || c == '_').unwrap_or(text.len() - i - 9);
            // The symbol ends at a name (`operator new (..)`) or at the
            // parameters' parenthesis, but for `operator ()`, whose own
            // brackets come first.
            let symbol = if text[i + 9..].starts_with("()") { 2 } else { symbol.min(text[i + 9..].find('(')?) };
            i += 9 + symbol;
            continue;
        }
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '(' if depth == 0 => return Some(i),
            _ => {}
        }
        i += c.len_utf8();
    }
    None
}

/// [`own_class_references`] for a class template (`S0_` names it, after
/// the template's own `S_`), whose arguments may hold spaces and
/// parentheses: in the parameters, and in a member function template's
/// return type (`Acc<float>& Acc<float>::add<int>(const Acc<T1>&)`;
/// sweep30 `repro/cg-demangle` pack.cu, fixture cgn). `None` when the
/// brackets do not balance (an `operator <`).
fn own_template_class_references(text: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut open = None;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.checked_sub(1)?,
            '(' if depth == 0 => {
                open = Some(i);
                break;
            }
            _ => {}
        }
    }
    let open = open?;
    // The last `::` and the last space before it, outside template arguments.
    let (mut depth, mut scope, mut start) = (0usize, None, 0usize);
    for (i, c) in text[..open].char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.checked_sub(1)?,
            ' ' if depth == 0 => start = i + 1,
            ':' if depth == 0 && text[i..].starts_with("::") => scope = Some((i, start)),
            _ => {}
        }
    }
    let (scope, start) = scope?;
    let class = text.get(start..scope).filter(|c| !c.is_empty())?;
    let returned = &text[..start];
    let returned = ["&& ", "& "]
        .iter()
        .find(|r| returned == format!("{class} {r}"))
        .map_or_else(|| returned.to_string(), |r| format!("{class}{r}"));
    Some(format!("{returned}{}{}", &text[start..open], unspaced_class_references(&text[open..], class)))
}

/// `parameters` with each `class &` and `class &&` written `class&`,
/// `class&&` (after `(`, `, ` or `const `).
fn unspaced_class_references(parameters: &str, class: &str) -> String {
    let mut parameters = parameters.to_string();
    for (before, after) in [("&&", "&&"), ("&", "&")] {
        for lead in ["(", ", ", "const "] {
            parameters = parameters.replace(&format!("{lead}{class} {before}"), &format!("{lead}{class}{after}"));
        }
    }
    parameters
}

/// Whether `c` can be part of an identifier.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether a name can start at byte `at` of `text` (no identifier
/// character before it).
fn starts_word(text: &str, at: usize) -> bool {
    text[..at].chars().next_back().is_none_or(|c| !is_word_char(c))
}

/// Operator names as nvlink spells them: a space after `operator` before a
/// symbol (`__half2::operator =(..)`) and after `new`/`delete` before the
/// parameters (`operator new (unsigned long, void *)`; sweep27 p280, p281
/// `-G`).
fn spaced_operators(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut rest = text;
    while let Some(at) = rest.find("operator") {
        let starts_name = starts_word(rest, at);
        let after = &rest[at + "operator".len()..];
        out.push_str(&rest[..at + "operator".len()]);
        rest = after;
        if !starts_name {
            continue;
        }
        match after.chars().next() {
            Some(c) if !(is_word_char(c) || c == ' ') => {
                out.push(' ');
                // `operator <` with template arguments: nvlink writes them
                // closed up, `operator <<long long, ..>(..)` (sweep29 p301,
                // libcu++'s `chrono::operator <`).
                if let Some(arguments) = after.strip_prefix("< <") {
                    out.push_str("<<");
                    rest = arguments;
                } else if let Some(arguments) = after.strip_prefix("<< <") {
                    // `operator <<<unsigned int>(..)` (libcu++'s bitset).
                    out.push_str("<<<");
                    rest = arguments;
                }
            }
            Some(' ') => {
                for word in [" new[]", " delete[]", " new", " delete"] {
                    if after.strip_prefix(word).is_some_and(|p| p.starts_with('(')) {
                        out.push_str(word);
                        out.push(' ');
                        rest = &after[word.len()..];
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out.push_str(rest);
    out
}

/// Whether a mangled nested name ends in a base-object constructor or
/// destructor (`C2`/`D2` right after the class name, before the
/// parameters: `_ZN4RectC2Eiff`, `_ZN4RectD2Ev`).
fn base_object_structor(name: &str) -> bool {
    nested_structor(name).is_some_and(|(kind, _, _)| kind == "C2" || kind == "D2")
}

/// An inheriting constructor (`using Base::Base;`, `_ZN2bn5LimbsCI1NS_8
/// LimbBaseEEj`) as nvlink's demangler writes it: the base named in full
/// in the constructor's place and the kind after, `bn::Limbs::bn::LimbBase
/// (unsigned int) [complete inheriting]`, `bn::TD<int>::bn::TB<int>(int)`,
/// `bn::Mid::bn::VB(int) [base inheriting]` for `CI2` (session 49's probe,
/// sweep34's `-G` callgraphs). The base is demangled as the first parameter
/// of a stand-in function (`_ZN2bn5Limbs<mark>ENS_8LimbBaseEj`), which keeps
/// the substitutions' numbering.
fn inheriting_constructor_like_nvlink(name: &str) -> Option<String> {
    const MARK: &str = "NvInheritingConstructor";
    let constructor = inheriting_constructor(name)?;
    let InheritingConstructor { prefix, complete, base, arguments, parameters } = constructor;
    let nested_base = constructor.nested_base();
    // After a nested base nvlink prints the constructor's own arguments;
    // of a plain one only the name, and the arguments when the base had
    // its own list before them (`E2<float>::B<int>(T1 *)` for `CI11BIfEIiE`,
    // `D::B(int, int)` for `CI11BIiEE`; session 49's ic.cu).
    let prints_own_arguments = nested_base || base.contains('I');
    let kind = if complete { "complete inheriting" } else { "base inheriting" };
    // A function template's first type is its return type: `v`.
    let returned = if arguments.is_empty() { "" } else { "v" };
    let stand_in = format!("{prefix}{}{MARK}{arguments}E{returned}{base}{parameters}", MARK.len());
    let text = demangle_like_nvlink(&stand_in);
    let text = text.strip_prefix("void ").unwrap_or(&text);
    let (class, rest) = text.split_once(&format!("::{MARK}"))?;
    // The constructor's own arguments, then its parameters (the base first).
    let mut depth = 0i32;
    let open = rest.char_indices().find(|&(_, c)| {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ => {}
        }
        c == '(' && depth == 0
    })?;
    let own_arguments = if prints_own_arguments { &rest[..open.0] } else { "" };
    let list = rest[open.0 + 1..].strip_suffix(')')?;
    // The base is the stand-in's first parameter.
    let items = top_level_items(list);
    let (base, parameters) = match items.get(1) {
        Some(second) => (&list[items[0].clone()], list[second.start..].trim_start()),
        None => (list, ""),
    };
    let base = if nested_base { base } else { base.split_once('<').map_or(base, |(name, _)| name) };
    Some(format!("{class}::{base}{own_arguments}({parameters}) [{kind}]"))
}

/// A lambda's closure type as nvlink's demangler writes it:
/// `{lambda(float, int)#1}` is `[lambda(float, int) (instance 1)]`
/// (fixture tl).
fn lambdas_spelled(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find("{lambda(") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "{lambda".len()..];
        // The parameter list, parentheses balanced, then `#N}`.
        let mut depth = 0usize;
        let close = after.char_indices().find_map(|(k, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            (depth == 0).then_some(k)
        });
        let spelled = close.and_then(|k| {
            let tail = after[k + 1..].strip_prefix('#')?;
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            tail[digits..].starts_with('}').then(|| (k, &tail[..digits], k + 2 + digits + 1))
        });
        match spelled {
            Some((k, instance, end)) => {
                out.push_str(&format!("[lambda{} (instance {instance})]", &after[..=k]));
                rest = &after[end..];
            }
            None => {
                out.push_str("{lambda");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `text` without the `_INTERNAL_<id>::` namespaces nvcc gives file-local
/// functions.
fn without_internal_namespaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("_INTERNAL_") {
        // Only at the start of a name (not inside another identifier).
        let starts_name = starts_word(rest, at);
        let end = rest[at..].find("::").filter(|&e| starts_name && rest[at..at + e].chars().all(is_word_char));
        match end {
            Some(e) => {
                out.push_str(&rest[..at]);
                rest = &rest[at + e + 2..];
            }
            None => {
                out.push_str(&rest[..at + "_INTERNAL_".len()]);
                rest = &rest[at + "_INTERNAL_".len()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `name` with each template parameter reference `T_`, `T0_`, .. turned into
/// a class named `T1`, `T2`, .. (substitutable as the parameter is) and each
/// int literal `Li5E` into one of the vendor type `int` (printed `(int)5`;
/// not substitutable, as `i` is not). None when the name holds a construct
/// the scan does not follow (external-name literals, lambdas, expressions
/// outside a `decltype`). With it, each `decltype` as nvlink prints it, in
/// order ([`DecltypePrinter`]).
fn nvlink_spelling(name: &str) -> Option<(String, Vec<Decltype>)> {
    if !name.is_ascii() {
        return None;
    }
    let b = name.as_bytes();
    let mut out = String::with_capacity(name.len() + 16);
    let mut i = 2; // after `_Z`
    out.push_str("_Z");
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut changed = false;
    let mut decltypes = Vec::new();
    // Read only for a name that has an expression.
    let mut scopes: Option<Vec<String>> = None;
    // Whether the token before this one opened a nested name (an `N` of
    // its own, not the last letter of a name).
    let mut opens_nested = false;
    // Whether the tokens just before were a pointer or reference (`P`,
    // `R`, `O`) and its qualifiers: what an unscoped template's arguments
    // after a substitution (`PS_IfLi3EE`) are marked in (UNSPACED_MARK).
    let mut after_declarator = false;
    // Where those arguments close: the mark goes before each.
    let mut unspaced_closes: std::collections::HashSet<usize> = std::collections::HashSet::new();
    while i < b.len() {
        let c = b[i];
        let after_nested_open = std::mem::take(&mut opens_nested);
        let declarator_before = std::mem::take(&mut after_declarator);
        match c {
            b'0'..=b'9' => {
                let n = digits(i);
                let len: usize = name[i..i + n].parse().ok()?;
                let end = i.checked_add(n)?.checked_add(len)?;
                out.push_str(name.get(i..end)?);
                i = end;
            }
            b'S' => {
                let next = *b.get(i + 1)?;
                if b"tabsiod".contains(&next) {
                    out.push_str(&name[i..i + 2]);
                    i += 2;
                } else {
                    let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit() || c.is_ascii_uppercase()).count();
                    if b.get(i + 1 + n) != Some(&b'_') {
                        return None;
                    }
                    out.push_str(&name[i..i + n + 2]);
                    i += n + 2;
                    if declarator_before && b.get(i) == Some(&b'I') {
                        let rest = skip_to_close(name.get(i + 1..)?, 1)?;
                        unspaced_closes.insert(name.len() - rest.len() - 1);
                        changed = true;
                    }
                }
            }
            b'T' => {
                let next = *b.get(i + 1)?;
                if next == b'_' || next.is_ascii_digit() {
                    let n = digits(i + 1);
                    if b.get(i + 1 + n) != Some(&b'_') {
                        return None;
                    }
                    // A parameter that opens a nested name (`NT_14__underlying_tE`)
                    // is marked: a pointer to it prints without the space.
                    let mark = if after_nested_open { NESTED_PARAMETER_MARK } else { "" };
                    out.push_str(&parameter_class_with(&name[i + 1..i + 1 + n], mark)?);
                    changed = true;
                    i += n + 2;
                } else if b"sue".contains(&next) {
                    out.push_str(&name[i..i + 2]);
                    i += 2;
                } else {
                    return None;
                }
            }
            // A null pointer of a builtin type (`LPi0E`, `LPKc0E`) is
            // copied as it is: the demangler writes it as nvlink does,
            // `(int *)0` (sweep35 `callgraph-demangle`).
            b'L' if b.get(i + 1) == Some(&b'P') => {
                let qualifiers = b[i + 2..].iter().take_while(|c| matches!(c, b'K' | b'V' | b'r')).count();
                let at = i + 2 + qualifiers;
                builtin_type(*b.get(at)?)?;
                let value_end = at + 1 + b.get(at + 1..)?.iter().position(|&c| c == b'E')?;
                if !b[at + 1..value_end].iter().all(u8::is_ascii_digit) {
                    return None;
                }
                out.push_str(&name[i..=value_end]);
                i = value_end + 1;
            }
            // A literal of an enumeration, named by a substitution or a
            // nested name (`LS9_0E`, `LNS2_21__atomic_cuda_operandE3E`: libcu++'s
            // memory orders; sweep28 p292 `-G`), or by its name alone
            // (`L9cgx_scope1E`, fixture cgx), is copied as it is.
            b'L' if matches!(b.get(i + 1), Some(b'S' | b'N' | b'1'..=b'9')) => {
                let after_type = match b[i + 1] {
                    b'S' => i + 1 + b[i + 1..].iter().position(|&c| c == b'_')? + 1,
                    b'N' => name.len() - skip_to_close(&name[i + 1..], 0)?.len(),
                    _ => {
                        let n = digits(i + 1);
                        let len: usize = name[i + 1..i + 1 + n].parse().ok()?;
                        i.checked_add(1 + n)?.checked_add(len)?
                    }
                };
                let value_end = after_type + b.get(after_type..)?.iter().position(|&c| c == b'E')?;
                if !b[after_type..value_end].iter().all(|c| c.is_ascii_alphanumeric()) {
                    return None;
                }
                out.push_str(&name[i..=value_end]);
                i = value_end + 1;
            }
            // An entity as a template argument (`L_ZNS1_13is_integral_vEE`, a
            // variable template) prints as its name, as the demangler has it:
            // copied as it is (sweep32 p330's `conditional<is_integral_v,
            // double, T1>`).
            b'L' if b.get(i + 1) == Some(&b'_') && b.get(i + 2) == Some(&b'Z') => {
                let end = match *b.get(i + 3)? {
                    b'N' => name.len() - skip_to_close(name.get(i + 3..)?, 0)?.len(),
                    c if c.is_ascii_digit() => {
                        let n = digits(i + 3);
                        let len: usize = name[i + 3..i + 3 + n].parse().ok()?;
                        i.checked_add(3 + n)?.checked_add(len)?
                    }
                    _ => return None,
                };
                if b.get(end) != Some(&b'E') {
                    return None;
                }
                out.push_str(name.get(i..=end)?);
                i = end + 1;
            }
            b'L' => {
                let ty = *b.get(i + 1)?;
                if !ty.is_ascii_lowercase() || ty == b'u' {
                    return None;
                }
                let value_end = b[i + 2..].iter().position(|&c| c == b'E')? + i + 2;
                if !b[i + 2..value_end].iter().all(|c| c.is_ascii_alphanumeric()) {
                    return None;
                }
                if ty == b'i' {
                    out.push_str("Lu3int");
                    changed = true;
                } else if ty == b'b' {
                    // `(bool)0`, not `false` (sweep27 p282 `-G`).
                    out.push_str("Lu4bool");
                    changed = true;
                } else {
                    out.push_str(&name[i..i + 2]);
                }
                out.push_str(&name[i + 2..=value_end]);
                i = value_end + 1;
            }
            b'D' => {
                let next = *b.get(i + 1)?;
                // A decltype (`DT`, `Dt`) is read whole and copied as it
                // is: its expression's template parameters stay as the
                // demangler numbers them; [`decltypes_marked`] puts
                // nvlink's spelling in place of the demangler's.
                if next == b'T' || next == b't' {
                    let mut printer = DecltypePrinter::new(b, scopes.get_or_insert_with(|| leading_scopes(name)));
                    let (spelled, end) = printer.decltype(i)?;
                    decltypes.push(Decltype { spelled: (!printer.entity).then_some(spelled) });
                    out.push_str(&printer.parameters_renamed(name, i, end)?);
                    // A nested name's first part (`NDtL_Z..EE6__callI..EE`,
                    // libcu++'s `__copy_cvref_t`) is two substitutions to
                    // libiberty and nvlink, one to cpp_demangle: a part
                    // that prints nothing makes the second.
                    if after_nested_open {
                        out.push_str(&format!("{}{UNNAMED_PART}", UNNAMED_PART.len()));
                    }
                    changed = true;
                    i = end;
                } else if next.is_ascii_digit() || b"nacishdefu".contains(&next) {
                    out.push_str(&name[i..i + 2]);
                    i += 2;
                } else if next == b'p' {
                    // A pack expansion of a template parameter (`DpT0_`,
                    // `DpOT_`) prints as nvlink's demangler writes it,
                    // `T2...`, `T1 &&...` (sweep29 p300's `apply_n<..>(T1,
                    // T2...)`, a variadic constructor's `(tag_t, T1 &&...)`).
                    let qualifiers = b[i + 2..].iter().take_while(|c| b"OPRKV".contains(c)).count();
                    let at = i + 2 + qualifiers;
                    if b.get(at) != Some(&b'T') {
                        // Of another type (`DpOS8_`, a substitution naming a
                        // parameter; `DpNS1_16unwrap_ref_decayIT_E4typeE`),
                        // which the demangler prints without its `...` in
                        // some places: a vendor qualifier in its place (one
                        // substitution as well) prints a mark after the
                        // type, `T1&& NvPackExpansionOf`, `...` after
                        // demangling (libcu++'s `invoke`, `make_tuple`;
                        // session 49's lib3.cu).
                        out.push_str(&format!("U{}{PACK_EXPANSION_QUALIFIER}", PACK_EXPANSION_QUALIFIER.len()));
                        changed = true;
                        i += 2;
                        continue;
                    }
                    let n = digits(at + 1);
                    if b.get(at + 1 + n) != Some(&b'_') {
                        return None;
                    }
                    out.push_str(&name[i..at]);
                    out.push_str(&parameter_class_with(&name[at + 1..at + 1 + n], PACK_EXPANSION_MARK)?);
                    changed = true;
                    i = at + n + 2;
                } else if next == b'v' {
                    let n = digits(i + 2);
                    if b.get(i + 2 + n) != Some(&b'_') {
                        return None;
                    }
                    out.push_str(&name[i..i + n + 3]);
                    i += n + 3;
                } else {
                    return None;
                }
            }
            // An array whose size is a template parameter (`RAT__j`, a
            // reference to an array of `T1` elements) prints that size as the
            // parameter's name, `unsigned int (&)[T1]` (sweep32 p330's
            // `span<(unsigned long)9, (bool)1, (int)0>`): a size the
            // demangler prints as a number, renamed after.
            b'A' if b.get(i + 1) == Some(&b'T') => {
                let n = digits(i + 2);
                if b.get(i + 2 + n) != Some(&b'_') || b.get(i + 3 + n) != Some(&b'_') {
                    return None;
                }
                let index: u64 = if n == 0 { 1 } else { name[i + 2..i + 2 + n].parse::<u64>().ok()?.checked_add(2)? };
                out.push_str(&format!("A{}_", ARRAY_PARAMETER_SIZE.checked_add(index)?));
                changed = true;
                i += n + 4;
            }
            b'A' => {
                let n = digits(i + 1);
                if b.get(i + 1 + n) != Some(&b'_') {
                    return None;
                }
                out.push_str(&name[i..i + n + 2]);
                i += n + 2;
            }
            // A template argument that is the expression of a template
            // parameter alone (`thread_block_tile<XT0_E, void>`) prints as
            // the parameter's name (`thread_block_tile<T2, void>`; sweep27
            // p282's `tile_incl_scan<int, (int)16>`). It stays an expression,
            // of the name alone (`X2T1E`): as a type it would be one more
            // substitution candidate, and every later `S<n>_` would name the
            // one before its own (sweep29 p301's `mbarrier_expect_tx`:
            // `integral_constant<dot_space, (dot_space)2>`, not `(..dot_scope, T1>)2`).
            b'X' if b.get(i + 1) == Some(&b'T') => {
                let n = digits(i + 2);
                if b.get(i + 2 + n) != Some(&b'_') || b.get(i + 3 + n) != Some(&b'E') {
                    return None;
                }
                out.push('X');
                out.push_str(&parameter_class(&name[i + 2..i + 2 + n])?);
                out.push('E');
                changed = true;
                i += n + 4;
            }
            // A local name (`Z6host_aPfiE..`) is scanned as the rest is; a
            // lambda's closure type (`UlfiE_`) is copied whole (fixture tl).
            b'Z' => {
                out.push('Z');
                i += 1;
            }
            // A constructor (`C1`, `C2`): its digit is not a name's length.
            b'C' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                out.push_str(&name[i..i + 2]);
                i += 2;
            }
            b'U' if b.get(i + 1) == Some(&b'l') => {
                let closed = skip_to_close(&name[i + 2..], 1)?;
                let end = name.len() - closed.len();
                let discriminator = b[end..].iter().take_while(|c| c.is_ascii_digit()).count();
                if b.get(end + discriminator) != Some(&b'_') {
                    return None;
                }
                // Its parameters' template parameters renamed as elsewhere:
                // nvlink prints a generic lambda `[lambda(T1) (instance 1)]`
                // and counts the parameter as a substitution, which
                // cpp_demangle (and c++filt) do not (`call<..>(T1 &&,
                // float)`; sweep35 `callgraph-demangle`).
                let signature = &name[i..end];
                if signature.contains('T') {
                    let renamed = parameters_in_types_renamed(signature)?;
                    changed |= renamed != signature;
                    out.push_str(&renamed);
                } else {
                    out.push_str(signature);
                }
                out.push_str(&name[end..end + discriminator + 1]);
                i = end + discriminator + 1;
            }
            // An operator whose code ends in a capital (`pL`, `+=`; `aS`,
            // `=`): both letters are its name, the capital no literal,
            // substitution or nested name (sweep33 p342's `Vec<float,
            // (int)4>::operator +=(..)`). An operator name stands first after
            // `_Z` or last in a nested name, before its `E` or its own
            // template arguments, where a type's code cannot be followed so.
            b'a'..=b'z' if operator_with_capital(b, i) => {
                out.push_str(&name[i..i + 2]);
                i += 2;
            }
            // An expression as a template argument (`XooL_ZNS1_13is_integral_
            // vEEL_ZNS1_9is_enum_vEEE`, libcu++'s `make_unsigned`): copied,
            // its type template parameters renamed; the demangler prints it.
            b'X' => {
                let mut printer = DecltypePrinter::new(b, scopes.get_or_insert_with(|| leading_scopes(name)));
                let (_, end) = printer.expression(i + 1)?;
                if b.get(end) != Some(&b'E') {
                    return None;
                }
                out.push_str(&printer.parameters_renamed(name, i, end + 1)?);
                changed = true;
                i = end + 1;
            }
            b'U' | b'.' | b'$' => return None,
            _ => {
                opens_nested = c == b'N';
                after_declarator =
                    matches!(c, b'P' | b'R' | b'O') || (declarator_before && matches!(c, b'K' | b'V' | b'r'));
                if c == b'E' && unspaced_closes.contains(&i) {
                    out.push_str(UNSPACED_MARK);
                }
                out.push(char::from(c));
                i += 1;
            }
        }
    }
    changed.then_some((out, decltypes))
}

/// `types` (mangled) with each template parameter `T_`, `T0_`.. renamed
/// as [`parameter_class`] names it; names are skipped by their length.
fn parameters_in_types_renamed(types: &str) -> Option<String> {
    let b = types.as_bytes();
    let mut out = String::with_capacity(types.len() + 8);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'0'..=b'9' => {
                let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                let len: usize = types[i..i + n].parse().ok()?;
                let end = i.checked_add(n)?.checked_add(len)?;
                out.push_str(types.get(i..end)?);
                i = end;
            }
            b'T' if b.get(i + 1).is_some_and(|c| *c == b'_' || c.is_ascii_digit()) => {
                let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                if b.get(i + 1 + n) != Some(&b'_') {
                    return None;
                }
                out.push_str(&parameter_class(&types[i + 1..i + 1 + n])?);
                i += n + 2;
            }
            // A literal's value is no name's length.
            b'L' => return None,
            c => {
                out.push(char::from(c));
                i += 1;
            }
        }
    }
    Some(out)
}

/// Whether the letters at `at` are an operator name whose code ends in a
/// capital letter ([`nvlink_spelling`]).
fn operator_with_capital(b: &[u8], at: usize) -> bool {
    const CODES: [&[u8; 2]; 11] = [b"aN", b"aS", b"dV", b"eO", b"lS", b"mI", b"mL", b"oR", b"pL", b"rM", b"rS"];
    let Some(code) = b.get(at..at + 2) else { return false };
    CODES.iter().any(|c| c.as_slice() == code) && (at == 2 || matches!(b.get(at + 2), Some(b'E' | b'I')))
}

/// Template parameter `T<digits>_` as the class nvlink's demangler names
/// it, a mangled source name: `T_` is `2T1`, `T0_` `2T2`, `T1_` `2T3`.
fn parameter_class(digits: &str) -> Option<String> {
    parameter_class_with(digits, "")
}

/// [`parameter_class`] with `mark` after the name ([`NESTED_PARAMETER_MARK`],
/// [`PACK_EXPANSION_MARK`]), which is taken out after demangling.
fn parameter_class_with(digits: &str, mark: &str) -> Option<String> {
    let index: usize = if digits.is_empty() { 1 } else { digits.parse::<usize>().ok()? + 2 };
    let spelled = format!("T{index}{mark}");
    Some(format!("{}{spelled}", spelled.len()))
}

/// Added to a template parameter's number (1 for `T_`) to make the size of
/// an array the demangler prints as a number (`[888888001]`), renamed
/// `[T1]` after demangling.
const ARRAY_PARAMETER_SIZE: u64 = 888_888_000;

/// Array sizes made of [`ARRAY_PARAMETER_SIZE`] back to the parameters'
/// names.
fn array_parameter_sizes_named(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let prefix = format!("[{}", ARRAY_PARAMETER_SIZE / 1000);
    while let Some(at) = rest.find(&prefix) {
        let digits = &rest[at + 1..];
        let n = digits.bytes().take_while(u8::is_ascii_digit).count();
        let value = digits[..n].parse::<u64>().ok().filter(|_| digits.as_bytes().get(n) == Some(&b']'));
        match value.and_then(|v| v.checked_sub(ARRAY_PARAMETER_SIZE)) {
            Some(index) if index > 0 && index < 1000 => {
                out.push_str(&rest[..at]);
                out.push_str(&format!("[T{index}]"));
                rest = &rest[at + 1 + n + 1..];
            }
            _ => {
                out.push_str(&rest[..=at]);
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// An extra template argument (the int literal 999999937) added to an
/// unscoped template's arguments after a substitution in a pointer or
/// reference (`PS_IfLi3EE`, a second `T2<..>` in one signature): nvlink's
/// demangler writes that pointer without the space, `T2<float, (int)3>*`,
/// where a template spelled out gets one, `T2<int, (int)2> *` (fixture
/// sp; sweep30 p313's `k_trees(const Node<float, (int)2> *, const
/// Node<int, (int)3>*, ..)`). A nested name's (`PNS0_IfEE`) keeps it.
const UNSPACED_MARK: &str = "Li999999937E";

/// [`UNSPACED_MARK`]s taken out, with the space before the pointer or
/// reference that follows each.
fn unspaced_marks_removed(text: &str) -> String {
    const PRINTED: &str = ", 999999937>";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(PRINTED) {
        out.push_str(&rest[..at]);
        out.push('>');
        rest = &rest[at + PRINTED.len()..];
        if rest.starts_with(" *") || rest.starts_with(" &") {
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Appended to a template parameter's class name where a pack expansion
/// names it, and replaced by `...` after demangling.
const PACK_EXPANSION_MARK: &str = "NvPackExpansion";

/// A vendor qualifier standing for a pack expansion of a type other than
/// a template parameter, printed after the type and replaced by `...`.
const PACK_EXPANSION_QUALIFIER: &str = "NvPackExpansionOf";

/// Each [`PACK_EXPANSION_MARK`] taken out, with `...` after the reference or
/// pointer that follows it: `T2...`, `T1 &&...`; each
/// [`PACK_EXPANSION_QUALIFIER`] replaced by `...`.
fn pack_expansions_closed(text: &str) -> String {
    let text = text.replace(&format!(" {PACK_EXPANSION_QUALIFIER}"), "...");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(PACK_EXPANSION_MARK) {
        out.push_str(&rest[..at]);
        rest = &rest[at + PACK_EXPANSION_MARK.len()..];
        let declarator = rest.len() - rest.trim_start_matches([' ', '&', '*']).len();
        out.push_str(rest[..declarator].trim_end());
        out.push_str("...");
        rest = &rest[declarator..];
    }
    out.push_str(rest);
    // A substitution naming a marked parameter under a pack expansion of
    // its own (`JDpT0_E .. DpOS8_`, libcu++'s `invoke`) has both: no type
    // expands twice.
    out.replace("......", "...")
}

/// Appended to a template parameter's class name where the parameter opens
/// a nested name (`T_::__underlying_t`), and taken out after demangling.
/// nvlink's demangler writes a pointer to such a parameter, named again by
/// its substitution, without the space: `__atomic_fetch_add_dispatch<..>(T1*,
/// T2, ..)` and `(const T1*, ..)`, beside `T1 *` everywhere else (sweep28
/// p292 `-G`, libcu++'s `atomic_ref`; sweep26 p272's `tex1Dfetch<float>(T1
/// *, ..)`, whose `T_` first stands in a template's arguments).
const NESTED_PARAMETER_MARK: &str = "NvNestedPrefix";

/// The builtin types whose names are several words, longest first.
const MULTIWORD_TYPES: [&str; 9] = [
    "unsigned long long",
    "unsigned long",
    "unsigned short",
    "unsigned char",
    "unsigned int",
    "signed char",
    "long double",
    "long long",
    "short int",
];

/// `int const*` → `const int*`, as nvlink's demangler writes a const that
/// applies to a one-word type or a builtin of several words
/// ([`MULTIWORD_TYPES`]). Template arguments (`<(int)3>`) and the
/// template-parameter names (`T1`) nvlink prints are not reproduced.
fn const_first(text: &str) -> String {
    // `volatile` moves the same way (`volatile T1 *`, `volatile unsigned
    // long &`; sweep28 p292 `-G`, libcu++'s atomics).
    // Both together move as one (`const volatile void *`).
    let text = qualifier_first(text, "const volatile");
    qualifier_first(&qualifier_first(&text, "volatile"), "const")
}

/// [`const_first`] for one qualifier.
fn qualifier_first(text: &str, qualifier: &str) -> String {
    let spaced = format!(" {qualifier}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&spaced) {
        let after = &rest[at + spaced.len()..];
        let word_boundary = after.chars().next().is_none_or(|c| !is_word_char(c));
        let head = &rest[..at];
        // A builtin type of several words moves whole (`unsigned int const *`
        // prints `const unsigned int *`, `long long const` `const long long`;
        // sweep27 p281, p283).
        let multiword = MULTIWORD_TYPES.iter().find(|t| {
            head.strip_suffix(**t).is_some_and(|before| before.is_empty() || before.ends_with(['(', ',', '<', ' ']))
        });
        let start = match multiword {
            Some(t) => head.len() - t.len(),
            None => type_start(head),
        };
        let word = &head[start..];
        // A name, its template arguments included (`thread_block_tile<T2,
        // void> const &` prints `const thread_block_tile<T2, void> &`;
        // fixture cgt `-G`); not a pointer (`Shape *const *`).
        let is_name = word.starts_with(is_word_char)
            && word.ends_with(|c: char| is_word_char(c) || c == '>')
            && !matches!(word, "const" | "volatile");
        if word_boundary && is_name {
            out.push_str(&head[..start]);
            out.push_str(qualifier);
            out.push(' ');
            out.push_str(word);
        } else {
            out.push_str(&rest[..at + spaced.len()]);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Where the type name that ends `head` starts: after the last `(`, `,`,
/// `<` or space outside its template arguments.
fn type_start(head: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in head.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' if depth > 0 => depth -= 1,
            '(' | ',' | '<' | ' ' if depth == 0 => return i + 1,
            _ => {}
        }
    }
    0
}

/// A `decltype` of a mangled name, as [`nvlink_spelling`] finds it.
struct Decltype {
    /// nvlink's spelling of it. None for an entity's (`DtL_Z..EE`), which
    /// the demangler prints as nvlink does, `decltype(cuda::std::__4::
    /// __apply_cvref)`: [`entity_decltypes_spelled`] takes it from there.
    spelled: Option<String>,
}

/// A nested name's part that prints nothing (taken out with the `::`
/// before it after demangling).
const UNNAMED_PART: &str = "NvUnnamedPart";

/// `decltypes` with each entity's spelling taken from the demangler's
/// output for `name` as it is (the substitutions before a decltype are
/// numbered alike there); None when the decltypes printed there are not
/// the ones found.
fn entity_decltypes_spelled(mut decltypes: Vec<Decltype>, name: &str) -> Option<Vec<Decltype>> {
    if decltypes.iter().all(|d| d.spelled.is_some()) {
        return Some(decltypes);
    }
    let plain = develf_link::demangle::demangle_fixed(name)?;
    let spans = decltype_spans(&plain)?;
    if spans.len() != decltypes.len() {
        return None;
    }
    for (decltype, (start, end)) in decltypes.iter_mut().zip(spans) {
        decltype.spelled.get_or_insert_with(|| plain[start..end].replacen("decltype (", "decltype(", 1));
    }
    Some(decltypes)
}

/// Where each `decltype (...)` of demangled `text` starts and ends (after
/// its balanced closing parenthesis). None when one does not close.
fn decltype_spans(text: &str) -> Option<Vec<(usize, usize)>> {
    const PRINTED: &str = "decltype (";
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(PRINTED) {
        let open = from + found + PRINTED.len() - 1;
        let mut depth = 0usize;
        let mut close = None;
        for (k, c) in text[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + k + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let close = close?;
        spans.push((from + found, close));
        from = close;
    }
    Some(spans)
}

/// Marks the place of each `decltype`, `decltypes[k]`, in a demangled
/// name: `NvDecltype<k>Nv`, a word the respelling after demangling leaves
/// alone (it would space `param#1*param#2` as a pointer), put back by
/// [`decltypes_restored`].
fn decltype_mark(k: usize) -> String {
    format!("NvDecltype{k}Nv")
}

/// Each mark of [`decltypes_marked`] replaced by its decltype, and the
/// parts [`nvlink_spelling`] added after one taken out.
fn decltypes_restored(decltypes: &[Decltype], text: &str) -> String {
    let mut out = text.replace(&format!("::{UNNAMED_PART}"), "");
    for (k, decltype) in decltypes.iter().enumerate() {
        if let Some(spelled) = &decltype.spelled {
            out = out.replace(&decltype_mark(k), spelled);
        }
    }
    out
}

/// Each `decltype (...)` of demangled `text` marked ([`decltype_mark`]) for
/// nvlink's spelling of it, `decltypes` in order ([`nvlink_spelling`]): `decltype((param#1+
/// param#2))`, `decltype((::cuda::std::forward<T1>(param#1)+::cuda::std::
/// forward<T2>(param#2)))` (sweep32 p330, libcu++'s `plus<void>`), where
/// cpp_demangle writes `decltype ({parm#1}+{parm#2})` and `decltype
/// (((::cuda::std::forward<int &>)({parm#1}))+...)`. `text` as it is when
/// the counts differ.
fn decltypes_marked(decltypes: &[Decltype], text: &str) -> String {
    let Some(spans) = decltype_spans(text) else { return text.to_string() };
    if decltypes.is_empty() || spans.len() != decltypes.len() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (k, (start, end)) in spans.into_iter().enumerate() {
        out.push_str(&text[from..start]);
        out.push_str(&decltype_mark(k));
        from = end;
    }
    out.push_str(&text[from..]);
    out
}

/// Prints a mangled `decltype` as nvlink's demangler (EDG's) does. Its
/// rules, read off nvlink 13.5's `-dump-callgraph` (session 49's
/// `decltype` probes, `nvlink_cli.rs`'s demangler test): a `DT` prints
/// `decltype((E))`, a `Dt` (an id-expression or member access)
/// `decltype(E)`; no operator puts parentheses round its operands, so
/// `t * (u + 1)` prints `param#1*param#2+(int)1`, but a member access is
/// parenthesised, `(param#1.x)`; a literal is its type cast, `(int)2`,
/// `(float)1.5`; function parameters are `param#1`, `param#2`, ...
struct DecltypePrinter<'b> {
    b: &'b [u8],
    /// Nesting, bounded: a hostile name gives up instead of recursing on.
    depth: usize,
    /// Where each template parameter in a type's place starts (its `T`)
    /// and where its digits end (at its `_`), in order.
    type_parameters: Vec<(usize, usize)>,
    /// Whether an entity (`L_Z..E`) was met that is not named here: the
    /// demangler prints it.
    entity: bool,
    /// The first substitutions of the name: its leading scopes.
    scopes: &'b [String],
}

/// The scopes a nested name opens with, the first substitutions of the
/// name (`_ZN4cuda3std3__4..`: `cuda`, `cuda::std`, `cuda::std::__4`), as
/// far as they are plain names.
fn leading_scopes(name: &str) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    let Some(mut rest) = name.strip_prefix("_ZN") else { return scopes };
    rest = rest.trim_start_matches(['K', 'V', 'r']);
    while let Some((part, after)) = source_name(rest) {
        rest = after;
        // The last name is the function's own, no scope.
        if !rest.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            break;
        }
        let scope = scopes.last().map_or_else(|| part.to_string(), |outer| format!("{outer}::{part}"));
        scopes.push(scope);
    }
    scopes
}

/// Binary operators: mangled code, spelling.
const BINARY_OPERATORS: &[(&[u8], &str)] = &[
    (b"pl", "+"),
    (b"mi", "-"),
    (b"ml", "*"),
    (b"dv", "/"),
    (b"rm", "%"),
    (b"an", "&"),
    (b"or", "|"),
    (b"eo", "^"),
    (b"eq", "=="),
    (b"ne", "!="),
    (b"lt", "<"),
    (b"gt", ">"),
    (b"le", "<="),
    (b"ge", ">="),
    (b"aa", "&&"),
    (b"oo", "||"),
    (b"ls", "<<"),
    (b"rs", ">>"),
    (b"aS", "="),
    (b"pL", "+="),
    (b"mI", "-="),
    (b"mL", "*="),
    (b"dV", "/="),
    (b"rM", "%="),
    (b"aN", "&="),
    (b"oR", "|="),
    (b"eO", "^="),
    (b"lS", "<<="),
    (b"rS", ">>="),
];

/// Prefix operators (`pp_`, `mm_`: the prefix increment and decrement).
const PREFIX_OPERATORS: &[(&[u8], &str)] = &[
    (b"ng", "-"),
    (b"ps", "+"),
    (b"nt", "!"),
    (b"co", "~"),
    (b"de", "*"),
    (b"ad", "&"),
    (b"pp_", "++"),
    (b"mm_", "--"),
];

/// Postfix operators (after the prefix forms are tried).
const POSTFIX_OPERATORS: &[(&[u8], &str)] = &[(b"pp", "++"), (b"mm", "--")];

/// The named casts: mangled code, keyword.
const NAMED_CASTS: &[(&[u8], &str)] =
    &[(b"sc", "static_cast"), (b"dc", "dynamic_cast"), (b"cc", "const_cast"), (b"rc", "reinterpret_cast")];

/// Builtin types by their one-letter code, as the demangler names them.
fn builtin_type(code: u8) -> Option<&'static str> {
    Some(match code {
        b'v' => "void",
        b'b' => "bool",
        b'c' => "char",
        b'a' => "signed char",
        b'h' => "unsigned char",
        b's' => "short",
        b't' => "unsigned short",
        b'i' => "int",
        b'j' => "unsigned int",
        b'l' => "long",
        b'm' => "unsigned long",
        b'x' => "long long",
        b'y' => "unsigned long long",
        b'n' => "__int128",
        b'o' => "unsigned __int128",
        b'f' => "float",
        b'd' => "double",
        b'e' => "long double",
        b'w' => "wchar_t",
        _ => return None,
    })
}

/// A floating literal's value as nvlink prints it: C's `%.<p>g` with the
/// fewest digits `p` that read back as the same value of the literal's
/// type (`same`), and `.0` after a whole number: `(float)1.0`, `(float)0.1`
/// (not the double nearest 0.1f), `(float)1e+10`, `(double)3e-05`,
/// `(double)123456.7`, `(double)1234567.0` (session 49's probes).
fn floating_literal(value: f64, same: impl Fn(&str) -> bool) -> String {
    if !value.is_finite() {
        return format!("{value}");
    }
    let text = (1..=17).map(|precision| c_general(value, precision)).find(|text| same(text));
    let text = text.unwrap_or_else(|| c_general(value, 17));
    if text.contains(['.', 'e']) { text } else { format!("{text}.0") }
}

/// `value` as C's `printf("%.<precision>g")` writes it.
fn c_general(value: f64, precision: usize) -> String {
    if value == 0.0 {
        return if value.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // The exponent after rounding to `precision` significant digits.
    let scientific = format!("{:.*e}", precision - 1, value);
    let exponent: i32 = scientific.rsplit_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let trimmed = |digits: &str| -> String {
        if digits.contains('.') {
            digits.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            digits.into()
        }
    };
    let precision = i32::try_from(precision).unwrap_or(17);
    if (-4..precision).contains(&exponent) {
        let decimals = usize::try_from(precision - 1 - exponent).unwrap_or(0);
        trimmed(&format!("{value:.decimals$}"))
    } else {
        let (mantissa, _) = scientific.split_once('e').unwrap_or((&scientific, ""));
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trimmed(mantissa), exponent.unsigned_abs())
    }
}

impl<'b> DecltypePrinter<'b> {
    fn new(b: &'b [u8], scopes: &'b [String]) -> Self {
        DecltypePrinter { b, depth: 0, type_parameters: Vec::new(), entity: false, scopes }
    }

    /// `name[from..end]`, read by this printer, with its type template
    /// parameters renamed as [`nvlink_spelling`] renames them elsewhere:
    /// they are substitutable, and a later `S<n>_` naming one prints `T1`,
    /// not the argument (`f15<int>(T1)`).
    fn parameters_renamed(&self, name: &str, from: usize, end: usize) -> Option<String> {
        let mut out = String::new();
        let mut at = from;
        for &(start, digits_end) in &self.type_parameters {
            out.push_str(name.get(at..start)?);
            out.push_str(&parameter_class(name.get(start + 1..digits_end)?)?);
            at = digits_end + 1;
        }
        out.push_str(name.get(at..end)?);
        Some(out)
    }

    /// The `DT<expression>E` or `Dt<expression>E` at `at`, printed, and
    /// where it ends (after the `E`).
    fn decltype(&mut self, at: usize) -> Option<(String, usize)> {
        let parenthesised = match self.b.get(at..at + 2)? {
            b"DT" => true,
            b"Dt" => false,
            _ => return None,
        };
        let (expression, end) = self.expression(at + 2)?;
        if self.b.get(end) != Some(&b'E') {
            return None;
        }
        let text = if parenthesised { format!("decltype(({expression}))") } else { format!("decltype({expression})") };
        Some((text, end + 1))
    }

    fn expression(&mut self, at: usize) -> Option<(String, usize)> {
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        let rest = self.b.get(at..)?;
        let code = rest.get(..2)?;
        let result = if let Some((_, op)) = BINARY_OPERATORS.iter().find(|(c, _)| *c == code) {
            let (left, next) = self.expression(at + 2)?;
            let (right, end) = self.expression(next)?;
            (format!("{left}{op}{right}"), end)
        } else if let Some((c, op)) = PREFIX_OPERATORS.iter().find(|(c, _)| rest.starts_with(c)) {
            let (operand, end) = self.expression(at + c.len())?;
            (format!("{op}{operand}"), end)
        } else if let Some((_, op)) = POSTFIX_OPERATORS.iter().find(|(c, _)| *c == code) {
            let (operand, end) = self.expression(at + 2)?;
            (format!("{operand}{op}"), end)
        } else if let Some((_, keyword)) = NAMED_CASTS.iter().find(|(c, _)| *c == code) {
            let (ty, next) = self.type_name(at + 2)?;
            let (operand, end) = self.expression(next)?;
            (format!("{keyword}<{ty}>({operand})"), end)
        } else if code == b"sp" {
            // A pack expansion: `declval()...`.
            let (pattern, end) = self.expression(at + 2)?;
            (format!("{pattern}..."), end)
        } else if code == b"qu" {
            let (condition, next) = self.expression(at + 2)?;
            let (yes, next) = self.expression(next)?;
            let (no, end) = self.expression(next)?;
            (format!("{condition}?{yes}:{no}"), end)
        } else if code == b"ix" {
            let (array, next) = self.expression(at + 2)?;
            let (index, end) = self.expression(next)?;
            (format!("{array}[{index}]"), end)
        } else if code == b"dt" || code == b"pt" {
            let (object, next) = self.expression(at + 2)?;
            let (member, end) = self.source_name_with_arguments(next)?;
            let arrow = if code == b"dt" { "." } else { "->" };
            (format!("({object}{arrow}{member})"), end)
        } else if code == b"cv" {
            // One operand only (`cv <type> _ <expression>* E` is a list).
            let (ty, next) = self.type_name(at + 2)?;
            if self.b.get(next) == Some(&b'_') {
                return None;
            }
            let (operand, end) = self.expression(next)?;
            (format!("({ty}){operand}"), end)
        } else if code == b"st" || code == b"at" {
            let (ty, end) = self.type_name(at + 2)?;
            let keyword = if code == b"st" { "sizeof" } else { "alignof" };
            (format!("{keyword}({ty})"), end)
        } else if code == b"sz" || code == b"az" {
            let (operand, end) = self.expression(at + 2)?;
            let keyword = if code == b"sz" { "sizeof" } else { "alignof" };
            (format!("{keyword}({operand})"), end)
        } else if let Some((named, end)) = self.entity_named(at) {
            (named, end)
        } else if rest.starts_with(b"L_Z") {
            // An entity: its name, nested or not, then the literal's `E`.
            let name_at = at + 3;
            let text = std::str::from_utf8(self.b.get(name_at..)?).ok()?;
            let name_end = match self.b.get(name_at)? {
                b'N' => self.b.len() - skip_to_close(text, 0)?.len(),
                b'0'..=b'9' => self.source_name_with_arguments(name_at)?.1,
                _ => return None,
            };
            if self.b.get(name_end) != Some(&b'E') {
                return None;
            }
            self.entity = true;
            (String::new(), name_end + 1)
        } else if code[0] == b'L' {
            self.literal(at)?
        } else if code == b"fp" || code == b"fL" {
            // `fL0p_`: a parameter of the function a level out (a
            // decltype in a parameter's type), `param#1[up 1 level]`;
            // deeper levels are not known.
            let (mut i, level) = if code == b"fL" {
                if self.b.get(at + 2..at + 4)? != b"0p" {
                    return None;
                }
                (at + 4, "[up 1 level]")
            } else {
                (at + 2, "")
            };
            while self.b.get(i).is_some_and(|c| b"KVr".contains(c)) {
                i += 1;
            }
            let (index, end) = self.numbered(i)?;
            (format!("param#{index}{level}"), end)
        } else if code == b"cl" {
            let (callee, next) = self.expression(at + 2)?;
            let (arguments, end) = self.list(next, Self::expression)?;
            (format!("{callee}({})", arguments.join(", ")), end)
        } else if code == b"gs" {
            let (name, end) = self.expression(at + 2)?;
            (format!("::{name}"), end)
        } else if code == b"sr" {
            // `sr <level>+ E <name>`: each level a source name.
            let (mut parts, next) = self.list(at + 2, Self::source_name_with_arguments)?;
            let (last, end) = self.source_name_with_arguments(next)?;
            parts.push(last);
            (parts.join("::"), end)
        } else if code[0] == b'T' {
            let (parameter, end) = self.parameter(at)?;
            (parameter, end)
        } else if code[0].is_ascii_digit() {
            // A name, called or with template arguments: `declval_<T1>`.
            self.source_name_with_arguments(at)?
        } else {
            return None;
        };
        self.depth -= 1;
        Some(result)
    }

    /// A literal `L <builtin type> <value> E` as its type cast: `(int)2`,
    /// `(bool)1`, `(int)-3` (`n` for a negative value), `(float)1.5`
    /// (the IEEE bits in hexadecimal).
    fn literal(&self, at: usize) -> Option<(String, usize)> {
        let code = *self.b.get(at + 1)?;
        let ty = builtin_type(code)?;
        let value_at = at + 2;
        let value_end = value_at + self.b.get(value_at..)?.iter().position(|&c| c == b'E')?;
        let value = std::str::from_utf8(self.b.get(value_at..value_end)?).ok()?;
        let value = match code {
            b'f' => {
                let value = f32::from_bits(u32::from_str_radix(value, 16).ok()?);
                floating_literal(f64::from(value), |text| text.parse::<f32>().is_ok_and(|v| v == value))
            }
            b'd' => {
                let value = f64::from_bits(u64::from_str_radix(value, 16).ok()?);
                floating_literal(value, |text| text.parse::<f64>().is_ok_and(|v| v == value))
            }
            _ => {
                let (sign, digits) = value.strip_prefix('n').map_or(("", value), |d| ("-", d));
                if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                format!("{sign}{digits}")
            }
        };
        Some((format!("({ty}){value}"), value_end + 1))
    }

    /// A type inside an expression: a builtin, a template parameter, a
    /// source name, or a pointer, reference or `const` of one (`PKc`:
    /// `const char *`).
    fn type_name(&mut self, at: usize) -> Option<(String, usize)> {
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        let code = *self.b.get(at)?;
        let result = match code {
            b'P' | b'R' | b'O' => {
                let (inner, end) = self.type_name(at + 1)?;
                let declarator = match code {
                    b'P' => "*",
                    b'R' => "&",
                    _ => "&&",
                };
                (format!("{inner} {declarator}"), end)
            }
            b'K' => {
                let (inner, end) = self.type_name(at + 1)?;
                // A const pointer: `char *const`.
                if inner.ends_with('*') { (format!("{inner}const"), end) } else { (format!("const {inner}"), end) }
            }
            b'T' => self.type_parameter(at)?,
            b'0'..=b'9' => self.source_name_with_arguments(at)?,
            _ => (builtin_type(code)?.to_string(), at + 1),
        };
        self.depth -= 1;
        Some(result)
    }

    /// Items read by `item` from `at` up to an `E`, and where the list ends
    /// (after the `E`).
    fn list(
        &mut self,
        at: usize,
        mut item: impl FnMut(&mut Self, usize) -> Option<(String, usize)>,
    ) -> Option<(Vec<String>, usize)> {
        let mut i = at;
        let mut items = Vec::new();
        while self.b.get(i) != Some(&b'E') {
            let (text, next) = item(self, i)?;
            items.push(text);
            i = next;
        }
        Some((items, i + 1))
    }

    /// A parameter's number, `_` 1, `0_` 2, ... (as [`parameter_class`]
    /// counts), and where it ends.
    fn numbered(&self, at: usize) -> Option<(usize, usize)> {
        let n = self.b.get(at..)?.iter().take_while(|c| c.is_ascii_digit()).count();
        if self.b.get(at + n) != Some(&b'_') {
            return None;
        }
        let index = if n == 0 { 1 } else { std::str::from_utf8(&self.b[at..at + n]).ok()?.parse::<usize>().ok()? + 2 };
        Some((index, at + n + 1))
    }

    /// `T_`, `T0_`, ... as `T1`, `T2`, ...
    fn parameter(&mut self, at: usize) -> Option<(String, usize)> {
        if self.b.get(at) != Some(&b'T') {
            return None;
        }
        let (index, end) = self.numbered(at + 1)?;
        Some((format!("T{index}"), end))
    }

    /// An entity `L_Z <name> E` whose name is plain or opens with one of
    /// the name's leading scopes (`L_ZNS1_16__fp_format_of_vEE`: `cuda::
    /// std::__4::__fp_format_of_v`), and where it ends.
    fn entity_named(&self, at: usize) -> Option<(String, usize)> {
        let mut i = at.checked_add(3)?;
        if self.b.get(at..i)? != b"L_Z" {
            return None;
        }
        let nested = self.b.get(i) == Some(&b'N');
        let mut parts: Vec<String> = Vec::new();
        if nested {
            i += 1;
            if self.b.get(i) == Some(&b'S') {
                let n = self.b.get(i + 1..)?.iter().take_while(|c| c.is_ascii_alphanumeric()).count();
                if self.b.get(i + 1 + n) != Some(&b'_') {
                    return None;
                }
                let index = if n == 0 {
                    0
                } else {
                    usize::from_str_radix(std::str::from_utf8(&self.b[i + 1..i + 1 + n]).ok()?, 36).ok()? + 1
                };
                parts.push(self.scopes.get(index)?.clone());
                i += n + 2;
            }
        }
        loop {
            let n = self.b.get(i..)?.iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                break;
            }
            let len: usize = std::str::from_utf8(&self.b[i..i + n]).ok()?.parse().ok()?;
            let end = i.checked_add(n)?.checked_add(len)?;
            parts.push(std::str::from_utf8(self.b.get(i + n..end)?).ok()?.to_string());
            i = end;
            if !nested {
                break;
            }
        }
        if nested {
            if self.b.get(i) != Some(&b'E') {
                return None;
            }
            i += 1;
        }
        if parts.is_empty() || self.b.get(i) != Some(&b'E') {
            return None;
        }
        Some((parts.join("::"), i + 1))
    }

    /// A template argument in an expression: a type, a template parameter,
    /// a literal or an entity.
    fn template_argument(&mut self, at: usize) -> Option<(String, usize)> {
        if let Some(named) = self.entity_named(at) {
            return Some(named);
        }
        if self.b.get(at) == Some(&b'L') {
            return self.literal(at);
        }
        self.type_name(at)
    }

    /// [`Self::parameter`] in a type's place, its position recorded.
    fn type_parameter(&mut self, at: usize) -> Option<(String, usize)> {
        let (parameter, end) = self.parameter(at)?;
        self.type_parameters.push((at, end - 1));
        Some((parameter, end))
    }

    /// A source name, with template arguments that are template parameters.
    fn source_name_with_arguments(&mut self, at: usize) -> Option<(String, usize)> {
        let n = self.b.get(at..)?.iter().take_while(|c| c.is_ascii_digit()).count();
        let len: usize = std::str::from_utf8(self.b.get(at..at + n)?).ok()?.parse().ok()?;
        let end = at.checked_add(n)?.checked_add(len)?;
        let mut text = std::str::from_utf8(self.b.get(at + n..end)?).ok()?.to_string();
        if self.b.get(end) != Some(&b'I') {
            return Some((text, end));
        }
        let (arguments, after) = self.list(end + 1, Self::template_argument)?;
        text.push('<');
        text.push_str(&arguments.join(", "));
        text.push('>');
        Some((text, after))
    }
}
