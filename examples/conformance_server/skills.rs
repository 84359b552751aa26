//! The fixtures of the suite's Skills scenarios (`sep-2640-skills-*`, SEP-2640): a skill with
//! a subdirectory (for `resources/directory/read`) and a skill under an organisational
//! prefix.

use typed_mcp::mcp::skills::SkillDefinition;

/// `skill://pdf-processing` (a `templates/` folder with a nested `regional/` one) and
/// `skill://acme/billing/refunds`.
pub(crate) fn skills() -> Vec<SkillDefinition> {
    let pdf = SkillDefinition::new("pdf-processing")
        .file(
            "SKILL.md",
            "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n\
             license: Apache-2.0\nmetadata:\n  version: \"2.1.0\"\n---\n\n# PDF processing\n\n\
             Choose the matching template from `templates/`.\n",
        )
        .file("templates/invoice.md", "# Invoice\n\nAmount: {{amount}}\n")
        .file(
            "templates/regional/eu-invoice.md",
            "# EU invoice\n\nVAT: {{vat}}\n",
        );
    let refunds = SkillDefinition::new("acme/billing/refunds")
        .file(
            "SKILL.md",
            "---\nname: refunds\ndescription: Process customer refund requests per company \
             policy\n---\n\nUse `examples/email.md` to answer.\n",
        )
        .file(
            "examples/email.md",
            "Dear customer,\n\nYour refund is on its way.\n",
        );
    vec![pdf, refunds]
}
