//! Small helpers for running commands: locate the workspace and cargo, echo
//! each command line to stderr before running it, and turn a failure into a
//! one-line error message.

use std::env;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

/// The workspace root: the parent of this package's manifest directory.
pub fn workspace_root() -> Result<PathBuf, String> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().map(Path::to_path_buf).ok_or_else(|| {
        format!(
            "cannot find the workspace root: {} has no parent directory",
            manifest_dir.display()
        )
    })
}

/// A `cargo` command (`$CARGO`, falling back to `cargo`) with the given
/// arguments, to be run in `root`.
pub fn cargo<I, S>(root: &Path, args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let program = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(root);
    cmd
}

/// Prints `$ <command line>` to stderr, runs `cmd` with inherited stdio and
/// fails with a one-line message unless it exits successfully.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let line = display(cmd);
    eprintln!("$ {line}");
    let status = cmd.status().map_err(|e| format!("could not start `{line}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{line}` failed ({})", describe(status)))
    }
}

/// Prints `$ <command line>` to stderr, runs `cmd` with inherited stdio and
/// returns its exit status as this process's (a signal becomes 128 + N, as
/// in a shell; 1 when no code is known): for commands whose own message is
/// the error.
pub fn run_status(cmd: &mut Command) -> Result<std::process::ExitCode, String> {
    let line = display(cmd);
    eprintln!("$ {line}");
    let status = cmd.status().map_err(|e| format!("could not start `{line}`: {e}"))?;
    Ok(std::process::ExitCode::from(exit_code(status)))
}

/// The exit code a shell would report for `status`.
fn exit_code(status: ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return u8::try_from(128 + signal).unwrap_or(1);
        }
    }
    1
}

/// Runs `cmd` silently (no echo, no output) and tells whether it succeeded.
/// A command that cannot be started counts as a failure.
pub fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|status| status.success())
        .unwrap_or(false)
}

/// Runs `cmd` silently and returns its stdout if it succeeded.
pub fn capture(cmd: &mut Command) -> Option<String> {
    let output = cmd.stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
    if output.status.success() {
        Some(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        None
    }
}

/// Whether this process runs as root (`id -u` prints 0).
pub fn is_root() -> bool {
    capture(Command::new("id").arg("-u")).is_some_and(|uid| uid.trim() == "0")
}

/// The first executable file called `name` in the directories of `$PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// True if `path` is a regular file that someone may execute.
fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Formats seconds as `12.3 s`.
pub fn seconds(duration: std::time::Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

/// The command line of `cmd` as a shell would read it: environment
/// assignments, the program's file name (not the full `$CARGO` path) and the
/// arguments, quoted where needed.
pub fn display(cmd: &Command) -> String {
    let mut words = Vec::new();
    for (key, value) in cmd.get_envs() {
        if let Some(value) = value {
            words.push(format!("{}={}", key.to_string_lossy(), quote(&value.to_string_lossy())));
        }
    }
    let program = Path::new(cmd.get_program());
    let name = program.file_name().unwrap_or(program.as_os_str()).to_string_lossy();
    words.push(quote(&name));
    words.extend(cmd.get_args().map(|arg| quote(&arg.to_string_lossy())));
    words.join(" ")
}

/// Single-quotes `word` for a POSIX shell unless it only has safe characters.
fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// "exit code N" or "killed by a signal".
fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => "terminated by a signal".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_passed_on_as_a_shell_reports_them() {
        let sh = |script: &str| Command::new("sh").args(["-c", script]).status().expect("sh runs");
        assert_eq!(exit_code(sh("exit 2")), 2);
        assert_eq!(exit_code(sh("exit 0")), 0);
        assert_eq!(exit_code(sh("kill -ABRT $$")), 128 + 6);
    }

    #[test]
    fn display_quotes_and_shows_env() {
        let mut cmd = Command::new("/opt/toolchain/bin/cargo");
        cmd.args(["test", "--", "a b", "it's"])
            .env("DEBIAN_FRONTEND", "noninteractive");
        assert_eq!(
            display(&cmd),
            r"DEBIAN_FRONTEND=noninteractive cargo test -- 'a b' 'it'\''s'"
        );
    }
}
