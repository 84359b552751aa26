//! Names shared by the emitters, so types and validators agree on them.

/// The stem of the validator functions of definition `def_name`: `validate::<stem>` checks a
/// value against it and, for unions, `validate::select_<stem>` picks the branch.
pub(crate) fn fn_stem(def_name: &str) -> String {
    use heck::ToSnakeCase;
    let cleaned: String = def_name
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    let stem = cleaned.to_snake_case();
    if stem.starts_with(|c: char| c.is_ascii_digit()) || stem.is_empty() {
        format!("def_{stem}")
    } else {
        stem
    }
}
