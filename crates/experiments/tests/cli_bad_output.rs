//! Output that cannot be written, and files that must not be damaged
//! (issue 36), through the binary: stdout closed by its reader (a quiet
//! exit, code 141) or on a full disk (one `nn: error:` line, code 1); a
//! `--save` target that is a FIFO or one of the data files under another
//! name (refused before any work, the file left as it was); a save that
//! fails part-way (`ulimit -f`) leaving the old model whole.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{data, fails, nn, temp_dir};
use experiments::datasets::load_any;

/// The exit code of a quiet stop on a closed pipe (128 + SIGPIPE).
const BROKEN_PIPE_EXIT: i32 = 141;

/// The shipped airfoil rows `rows` (repeated `times` times), with a header,
/// written to `dir/name` as CSV.
fn airfoil_csv(dir: &Path, name: &str, rows: std::ops::Range<usize>, times: usize) -> PathBuf {
    let table = load_any(Path::new(&data("airfoil/airfoil.csv.gz"))).expect("shipped airfoil");
    let mut text = String::from("a,b,c,d,e,target\n");
    for _ in 0..times {
        for i in rows.clone() {
            let row: Vec<String> = table.x.row(i).iter().map(|v| format!("{v:e}")).collect();
            text += &format!("{},{:e}\n", row.join(","), table.y[i]);
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the CSV");
    path
}

/// `nn fit` of a small ELM on `train` (tested on `test`), saved to `save`;
/// `extra` flags appended.
fn fit_args(train: &Path, test: &Path, save: &Path, extra: &[&str]) -> Vec<String> {
    let base = [
        "fit",
        "--model",
        "elm",
        "--hidden",
        "20",
        "--task",
        "regression",
        "--train",
        train.to_str().expect("utf-8 path"),
        "--test",
        test.to_str().expect("utf-8 path"),
        "--save",
        save.to_str().expect("utf-8 path"),
    ];
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// Run `nn args…`, which must succeed.
fn succeeds(args: &[String]) {
    let out = nn().args(args).output().expect("run nn");
    assert!(
        out.status.success(),
        "nn {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Wait for `child` at most two minutes (a regression that blocks, say on
/// a FIFO, fails the test rather than hanging it); its status and stderr.
fn wait(mut child: std::process::Child) -> (ExitStatus, String) {
    let started = Instant::now();
    loop {
        if child.try_wait().expect("wait for nn").is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("nn did not finish within two minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("collect nn's output");
    (out.status, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// An exit code of a clean failure: not success, a panic (101) or an abort
/// (134).
fn clean_failure(code: i32) -> bool {
    ![0, 101, 134].contains(&code)
}

/// No panic and no error in `stderr`, and the quiet exit of a closed pipe.
fn quiet_broken_pipe(status: ExitStatus, stderr: &str, what: &str) {
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(!stderr.contains("nn: error"), "{what}: {stderr}");
    assert_eq!(status.code(), Some(BROKEN_PIPE_EXIT), "{what}: {status:?}: {stderr}");
}

/// `nn predict … | head -1`: the predictions after the first line cannot
/// be written; `nn` stops quietly with code 141. The data's ~1 MB of
/// predictions is far more than a pipe holds, so the write does fail.
#[test]
fn predict_into_a_pipe_closed_after_one_line_stops_quietly() {
    let dir = temp_dir("pipe");
    let train = airfoil_csv(dir.path(), "train.csv", 0..1000, 1);
    let model = dir.path().join("m.bin");
    succeeds(&fit_args(&train, &train, &model, &[]));
    let many = airfoil_csv(dir.path(), "many.csv", 0..1503, 40);
    let mut child = nn()
        .args(["predict", "--model-file"])
        .arg(&model)
        .arg("--data")
        .arg(&many)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nn predict");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    reader.read_line(&mut first).expect("read the first prediction");
    assert!(first.trim().parse::<f64>().is_ok_and(f64::is_finite), "{first:?}");
    drop(reader);
    let (status, stderr) = wait(child);
    quiet_broken_pipe(status, &stderr, "predict | head -1");
}

/// `nn fit` and `nn update` whose reader has gone before the report is
/// written: the same quiet stop, and the model is saved all the same.
#[test]
fn fit_and_update_into_a_closed_pipe_stop_quietly_after_saving() {
    let dir = temp_dir("pipe-fit");
    let train = airfoil_csv(dir.path(), "train.csv", 0..600, 1);
    let more = airfoil_csv(dir.path(), "more.csv", 600..900, 1);
    let model = dir.path().join("m.bin");
    let spawn = |args: &[String]| {
        let mut child = nn()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn nn");
        drop(child.stdout.take());
        wait(child)
    };
    let (status, stderr) = spawn(&fit_args(&train, &train, &model, &["--updatable"]));
    quiet_broken_pipe(status, &stderr, "fit");
    let saved = std::fs::read(&model).expect("the model was saved");
    let update: Vec<String> = [
        "update",
        "--model-file",
        model.to_str().unwrap(),
        "--add",
        more.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    let (status, stderr) = spawn(&update);
    quiet_broken_pipe(status, &stderr, "update");
    assert_ne!(std::fs::read(&model).expect("the updated model"), saved, "update saved");
}

/// stdout on a full disk (`> /dev/full`): one line `nn: error: cannot
/// write to stdout: No space left on device …` and code 1, for `predict`,
/// `fit` and `update`.
#[test]
fn stdout_on_a_full_disk_is_one_error_line() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("skipped: this system has no /dev/full");
        return;
    }
    let dir = temp_dir("full");
    let train = airfoil_csv(dir.path(), "train.csv", 0..600, 1);
    let more = airfoil_csv(dir.path(), "more.csv", 600..900, 1);
    let model = dir.path().join("m.bin");
    let run_full = |args: &[String]| {
        let stdout = std::fs::OpenOptions::new()
            .write(true)
            .open(full)
            .expect("open /dev/full");
        let child = nn()
            .args(args)
            .stdout(Stdio::from(stdout))
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn nn");
        let (status, stderr) = wait(child);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(status.code(), Some(1), "{args:?}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("nn: error: ")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: one error line: {stderr}");
        assert!(
            errors[0].starts_with("nn: error: cannot write to stdout: No space left on device"),
            "{args:?}: {stderr}"
        );
    };
    run_full(&fit_args(&train, &train, &model, &["--updatable"]));
    assert!(model.is_file(), "fit saved the model before writing its report");
    let path = |p: &Path| p.to_str().expect("utf-8 path").to_string();
    run_full(&[
        "predict".into(),
        "--model-file".into(),
        path(&model),
        "--data".into(),
        path(&more),
    ]);
    run_full(&[
        "update".into(),
        "--model-file".into(),
        path(&model),
        "--add".into(),
        path(&more),
    ]);
}

/// `p` is still a FIFO.
#[cfg(unix)]
fn is_fifo(p: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_fifo())
}

/// A `--save` target that is a FIFO (a stand-in for any device: `nn` once
/// replaced `/dev/null` by a regular file), directly or through a symbolic
/// link, is refused before any work and stays a FIFO; so is `nn update`'s
/// default target, its `--model-file` (which would otherwise block the read).
#[cfg(unix)]
#[test]
fn a_save_target_that_is_not_a_regular_file_is_refused() {
    let dir = temp_dir("fifo");
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: `mkfifo` did not make a FIFO");
        return;
    }
    let link = dir.path().join("link.bin");
    std::os::unix::fs::symlink(&fifo, &link).expect("symlink");
    let train = airfoil_csv(dir.path(), "train.csv", 0..600, 1);
    let more = airfoil_csv(dir.path(), "more.csv", 600..900, 1);
    let model = dir.path().join("m.bin");
    succeeds(&fit_args(&train, &train, &model, &["--updatable"]));
    let saved = std::fs::read(&model).expect("read the model");
    let s = |p: &Path| p.display().to_string();
    for target in [&fifo, &link] {
        let expected = format!(
            "nn: error: --save {}: is a FIFO (named pipe), not a regular file; give a regular file or a new path",
            s(target)
        );
        let (_, err) = fails(&fit_args(&train, &train, target, &[]));
        assert_eq!(err, expected);
        assert!(is_fifo(&fifo), "the FIFO was replaced");
        let (_, err) = fails(&[
            "update",
            "--model-file",
            &s(&model),
            "--add",
            &s(&more),
            "--save",
            &s(target),
        ]);
        assert_eq!(err, expected);
        assert!(is_fifo(&fifo), "the FIFO was replaced");
    }
    // The model file of `nn update` is where the model is written back.
    let mut child = nn()
        .args(["update", "--model-file", &s(&fifo), "--add", &s(&more)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nn update");
    drop(child.stdout.take());
    let (status, stderr) = wait(child);
    assert!(status.code().is_some_and(clean_failure), "{status:?}: {stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "nn: error: --model-file {}: is a FIFO (named pipe), not a regular file; the model is written back to \
             it: give --save with a regular file or a new path",
            s(&fifo)
        )
    );
    assert!(is_fifo(&fifo), "the FIFO was replaced");
    // A directory as `nn update --save`.
    let (_, err) = fails(&[
        "update",
        "--model-file",
        &s(&model),
        "--add",
        &s(&more),
        "--save",
        &s(dir.path()),
    ]);
    assert!(err.contains("is a directory, not a regular file"), "{err}");
    assert_eq!(
        std::fs::read(&model).expect("read the model"),
        saved,
        "the model changed"
    );
}

/// A save that fails part-way (the file-size limit of `ulimit -f 1`) leaves
/// the old model whole: with SIGXFSZ ignored the write fails with EFBIG and
/// `nn` says so in one line, leaving no temporary file; killed by SIGXFSZ
/// (its default action) mid-write, it leaves the old model whole too. Both
/// for `fit --save` over a model and for `nn update`.
#[cfg(unix)]
#[test]
fn a_save_that_fails_part_way_leaves_the_old_model_whole() {
    let dir = temp_dir("partial");
    let train = airfoil_csv(dir.path(), "train.csv", 0..600, 1);
    let more = airfoil_csv(dir.path(), "more.csv", 600..900, 1);
    let model = dir.path().join("m.bin");
    succeeds(&fit_args(&train, &train, &model, &["--updatable"]));
    let saved = std::fs::read(&model).expect("read the model");
    assert!(
        saved.len() > 1024,
        "a model larger than the limit: {} bytes",
        saved.len()
    );
    let s = |p: &Path| p.display().to_string();
    let refit = fit_args(&train, &train, &model, &["--updatable", "--seed", "7"]);
    let update: Vec<String> = ["update", "--model-file", &s(&model), "--add", &s(&more)]
        .map(String::from)
        .to_vec();
    let names = || {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    for args in [&refit, &update] {
        for trap in [true, false] {
            let script = format!(
                "{}ulimit -f 1; exec \"$0\" \"$@\"",
                if trap { "trap '' XFSZ; " } else { "" }
            );
            let child = Command::new("sh")
                .arg("-c")
                .arg(script)
                .arg(env!("CARGO_BIN_EXE_nn"))
                .args(args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn sh");
            let (status, stderr) = wait(child);
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            assert!(
                !status.success(),
                "{args:?}: the save succeeded within 1 block? {stderr}"
            );
            if trap {
                assert!(
                    status.code().is_some_and(clean_failure),
                    "{args:?}: {status:?}: {stderr}"
                );
                let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("nn: error: ")).collect();
                assert_eq!(
                    errors,
                    [format!("nn: error: {}: File too large (os error 27)", s(&model))],
                    "{args:?}: {stderr}"
                );
                assert_eq!(names(), ["m.bin", "more.csv", "train.csv"], "a temporary file was left");
            } else {
                // Killed by SIGXFSZ, or (on a system where the limit is
                // met differently) an error: never a success.
                use std::os::unix::process::ExitStatusExt;
                assert!(
                    status.signal().is_some() || status.code().is_some_and(clean_failure),
                    "{status:?}: {stderr}"
                );
                // A temporary file the killed process could not remove.
                for name in names() {
                    if name.starts_with(".m.bin.") && name.ends_with(".tmp") {
                        std::fs::remove_file(dir.path().join(name)).expect("remove the temporary file");
                    }
                }
            }
            assert_eq!(
                std::fs::read(&model).expect("read the model"),
                saved,
                "{args:?}: the model changed"
            );
        }
    }
    // The old model still loads and predicts.
    let out = nn()
        .args(["predict", "--model-file", &s(&model), "--data", &s(&more)])
        .output()
        .expect("run nn predict");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 300);
}

/// `--save` at a hard link to a data file (which a symbolic link check by
/// path does not see) is refused before any work, for `fit` (training and
/// test file) and `update` (`--add`, `--forget`, `--test`); the data is
/// left as it was.
#[cfg(unix)]
#[test]
fn a_save_target_hard_linked_to_a_data_file_is_refused() {
    let dir = temp_dir("hardlink");
    let train = airfoil_csv(dir.path(), "train.csv", 0..600, 1);
    let test = airfoil_csv(dir.path(), "test.csv", 600..900, 1);
    let model = dir.path().join("m.bin");
    succeeds(&fit_args(&train, &test, &model, &["--updatable"]));
    let s = |p: &Path| p.display().to_string();
    let (train_text, test_text) = (
        std::fs::read(&train).expect("read"),
        std::fs::read(&test).expect("read"),
    );
    for (i, input) in [&train, &test].into_iter().enumerate() {
        let link = dir.path().join(format!("link{i}.bin"));
        std::fs::hard_link(input, &link).expect("hard link");
        let (_, err) = fails(&fit_args(&train, &test, &link, &[]));
        assert_eq!(
            err,
            format!(
                "nn: error: --save {} is the input file {}: the model would overwrite the data; choose another file",
                s(&link),
                s(input)
            )
        );
        for flag in ["--add", "--forget", "--test"] {
            let mut args: Vec<String> = vec!["update".into(), "--model-file".into(), s(&model)];
            if flag == "--test" {
                args.extend(["--add".into(), s(&test)]);
            }
            args.extend([flag.into(), s(input), "--save".into(), s(&link)]);
            let (_, err) = fails(&args);
            assert!(
                err.starts_with(&format!("nn: error: --save {} is the input file ", s(&link))),
                "{flag}: {err}"
            );
        }
        std::fs::remove_file(&link).expect("remove the link");
    }
    assert_eq!(std::fs::read(&train).expect("read"), train_text);
    assert_eq!(std::fs::read(&test).expect("read"), test_text);
}
