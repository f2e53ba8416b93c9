//! Which kernels are roots of dead-code elimination (rules 9 and 13.5).
//!
//! * `-kernels-used=K,...` (rule 9): a kernel is kept when one of the values
//!   is a *substring* of its name (nvlink's help: "Can be part of a kernel
//!   name"; `-kernels-used=kb` keeps `_Z2kbPi` and `_Z3kb2Pi`), a `*` in it
//!   matching any run (`_Z5k_*`, `k_i*t`, `_Z*`). It overrides
//!   the host information (`-kernels-used=kb2` keeps `kb2`, which no host
//!   object names).
//! * `-variables-used=V,...` without `-kernels-used` (rule 9.1): *no* kernel
//!   is a root, so every kernel and device function goes, while every
//!   variable stays, referenced or not (nvlink 13.5 on `calls`, `v.cu`, `a.o`:
//!   `-variables-used=lib_bias` leaves only the variables; with
//!   `-kernels-used=k` too, the kernels follow `-kernels-used`).
//! * Host information (rule 13.5): host objects list the kernels their host
//!   code refers to in `.nvHRKE` (external linkage) and `.nvHRKI` (internal:
//!   `static`, anonymous namespaces), NUL-separated glob patterns such as
//!   `_Z6powers*` or `__nv_static_25__..._*36_GLOBAL__N__...5kanon*`. In an
//!   executable whose kernel patterns are not all empty, a kernel no pattern
//!   matches is not a root; it survives only when a kept kernel reaches it
//!   (dynpar's `child`, launched by `parent`). Variables (`.nvHRDE`/`.nvHRDI`)
//!   and constants (`.nvHRCE`/`.nvHRCI`) prune nothing: `var_unused` and
//!   `cvar_unused` stay.

use crate::options::LinkOptions;

/// Is the kernel `name` a root of the live-code walk?
pub fn is_root_kernel(options: &LinkOptions, name: &str) -> bool {
    if let Some(list) = &options.kernels_used {
        // A `*` in a value matches any run (f7: `_Z5k_*` keeps `_Z5k_intPi`,
        // `k_i*t` too, `_Z*` and `*` every kernel; `?` and `[..]` are
        // literal): the value is a glob matched anywhere in the name.
        return list
            .iter()
            .any(|k| if k.contains('*') { glob_match(&format!("*{k}*"), name) } else { name.contains(k.as_str()) });
    }
    if options.variables_used.is_some() {
        return false;
    }
    match &options.host_kernels {
        Some(patterns) if patterns.iter().any(|p| !p.is_empty()) => patterns.iter().any(|p| glob_match(p, name)),
        _ => true,
    }
}

/// Whole-name glob match where `*` matches any run of bytes (possibly empty)
/// and every other byte matches itself. Linear in practice: the classic
/// greedy algorithm with one backtrack point, O(len(pattern) * len(name)) at
/// worst, never recursive.
pub(crate) fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some(b'*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if n.get(ni) == Some(&c) => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p.get(pi..).is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_whole_names() {
        assert!(glob_match("_Z6powers*", "_Z6powersPfi"));
        assert!(glob_match("_Z4ktpl*", "_Z4ktplIiEvPT_"));
        assert!(!glob_match("_Z4ktpl*", "x_Z4ktplIiEvPT_"));
        assert!(glob_match(
            "__nv_static_25__a0a23de6_4_a_cu_201bdd55_*36_GLOBAL__N__a0a23de6_4_a_cu_201bdd555kanon*",
            "__nv_static_25__a0a23de6_4_a_cu_201bdd55__ZN36_GLOBAL__N__a0a23de6_4_a_cu_201bdd555kanonEPi"
        ));
        assert!(glob_match("dev_calls", "dev_calls"));
        assert!(!glob_match("dev_calls", "dev_calls2"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("", "a"));
        assert!(glob_match("a*b*c", "aXbYbZc"));
        assert!(!glob_match("a*b*c", "aXbYbZ"));
    }
}
