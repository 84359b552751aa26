//! Where generated validators record violations.

use serde_json::Value;

use super::error::{Message, Part};
use super::location::Location;
use super::text::ShortText;
use super::values::type_name;
use super::ValidationError;

/// Receives the violations found by generated validators.
///
/// A collecting `Collector` builds a [`ValidationError`] for each violation; a checking one
/// ([`Collector::check_only`]) only counts them, without building anything, which is what
/// union selection uses to ask "does this branch accept the value?".
#[derive(Debug)]
pub struct Collector {
    errors: Vec<ValidationError>,
    failures: usize,
    collect: bool,
}

impl Default for Collector {
    /// A collector that records every error (as [`Collector::new`]).
    fn default() -> Self {
        Self::new()
    }
}

/// The parts of an error that are only computed when the error is recorded:
/// `(limit, actual, message)`, themselves rendered only when read.
pub type Detail = (Part, Part, Message);

impl Collector {
    /// A collector that records every error.
    pub fn new() -> Self {
        Self {
            errors: Vec::new(),
            failures: 0,
            collect: true,
        }
    }

    /// A collector that only counts violations.
    pub fn check_only() -> Self {
        Self {
            errors: Vec::new(),
            failures: 0,
            collect: false,
        }
    }

    /// Records a violation of `keyword` (found at `schema_path`) at `at`; `detail` is only
    /// called when errors are being collected.
    #[inline]
    pub fn fail(
        &mut self,
        at: &Location<'_>,
        schema_path: &'static str,
        keyword: &'static str,
        detail: impl FnOnce() -> Detail,
    ) {
        self.failures += 1;
        if self.collect {
            self.record(at, schema_path, keyword, detail);
        }
    }

    #[cold]
    #[inline(never)]
    fn record(
        &mut self,
        at: &Location<'_>,
        schema_path: &'static str,
        keyword: &'static str,
        detail: impl FnOnce() -> Detail,
    ) {
        let error = ValidationError::recorded(ShortText::EMPTY, schema_path, keyword, detail());
        if self.errors.capacity() == 0 {
            // One allocation for a usual handful of violations, not one per doubling.
            self.errors.reserve_exact(8);
        }
        self.errors.push(error);
        // The path is written where the error now is (see `Location::write_pointer_into`).
        if let Some(error) = self.errors.last_mut() {
            at.write_pointer_into(error.path_mut());
        }
    }

    /// Records a violation whose schema path is built at run time (by the run-time
    /// evaluator, `super::evaluator`); `schema_path` and `detail` are only called when errors
    /// are being collected.
    pub(crate) fn fail_dynamic(
        &mut self,
        at: &Location<'_>,
        schema_path: impl FnOnce() -> String,
        keyword: &'static str,
        detail: impl FnOnce() -> Detail,
    ) {
        self.failures += 1;
        if self.collect {
            let error = ValidationError::evaluated(schema_path(), keyword, detail());
            self.errors.push(error);
            if let Some(error) = self.errors.last_mut() {
                at.write_pointer_into(error.path_mut());
            }
        }
    }

    /// Records a `type` violation: `value` is none of the `expected` JSON types.
    #[inline]
    pub fn wrong_type(
        &mut self,
        at: &Location<'_>,
        schema_path: &'static str,
        expected: &'static [&'static str],
        value: &Value,
    ) {
        self.fail(at, schema_path, "type", || {
            (
                Part::Types(expected),
                Part::Str(type_name(value)),
                Message::Template("expected {limit}, found {actual}"),
            )
        });
    }

    /// Records a `required` violation: the object at `at` lacks member `name`.
    #[inline]
    pub fn missing(&mut self, at: &Location<'_>, schema_path: &'static str, name: &'static str) {
        self.fail(at, schema_path, "required", || {
            (
                Part::Str(name),
                Part::Null,
                Message::Template("missing required property `{limit}`"),
            )
        });
    }

    /// How many violations were found so far.
    #[inline]
    pub fn failures(&self) -> usize {
        self.failures
    }

    /// `true` while no violation was found.
    #[inline]
    pub fn is_ok(&self) -> bool {
        self.failures == 0
    }

    /// The recorded errors, or `Ok` when there are none.
    #[inline]
    pub fn into_result(self) -> Result<(), Vec<ValidationError>> {
        if self.failures == 0 {
            Ok(())
        } else {
            Err(self.errors)
        }
    }
}

/// The signature of every generated walker: validates a value found at a location and
/// records violations in a collector.
pub type Walker = fn(&Value, &Location<'_>, &mut Collector);

/// Runs a generated walker over `value` from the root and returns every violation.
#[inline]
pub fn validate_with(value: &Value, walker: Walker) -> Result<(), Vec<ValidationError>> {
    let mut errors = Collector::new();
    walker(value, &Location::Root, &mut errors);
    errors.into_result()
}

/// `true` when a generated walker finds no violation in `value` (nothing is allocated).
#[inline]
pub fn accepts(value: &Value, walker: Walker) -> bool {
    let mut errors = Collector::check_only();
    walker(value, &Location::Root, &mut errors);
    errors.is_ok()
}
