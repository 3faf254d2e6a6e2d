//! One file per subcommand that has its own arguments and steps.

pub mod audit;
pub mod import;
