//! Output formats. Each renders a finished scan ([`crate::pipeline::ScanOutput`]); none of
//! them analyses anything.

pub mod json;
pub mod sarif;
pub mod text;

/// What the run was asked to do, for formats that record it (SARIF invocations).
pub struct RunInfo {
    pub command_line: Vec<String>,
    pub working_directory: Option<std::path::PathBuf>,
    pub exit_code: i32,
}
