//! The protocol against the paper's Table 1, the win/defeat rule, and
//! the one-hot expansion.

use ndarray::array;

use super::protocol::{self, expand_one_hot, Options, ARCHITECTURES, SOURCES};
use super::report::wins_defeats;
use super::{cell, published};
use crate::datasets::Dataset;

/// Table 1's sizes are the protocol's, and where our features are the
/// paper's (all but Bank Marketing and Beijing PM2.5) the networks have
/// exactly Table 1's numbers of variables.
#[test]
fn networks_have_table_1_sizes() {
    let opts = Options::quick(std::env::temp_dir().join("palagi-seccia-test"));
    for (d, s) in SOURCES.iter().enumerate() {
        let row = published::TABLE_1[d];
        assert_eq!((s.train, s.test), (row.train, row.test), "{}", s.paper_name);
        if matches!(s.key, "bank" | "pm25") {
            continue;
        }
        let prep = protocol::prepare(d, s, &opts).unwrap();
        assert_eq!(prep.x_train.ncols(), row.features, "{}", s.paper_name);
        for (a, hidden) in ARCHITECTURES.iter().enumerate() {
            let mut widths = hidden.to_vec();
            widths.push(1);
            let net =
                models::dfnn::Dfnn::random(prep.x_train.ncols(), &widths, models::dfnn::Bias::None, 0, 0.5).unwrap();
            assert_eq!(net.n_weights(), row.variables[a], "{} {a}", s.paper_name);
        }
        // Scaled to [0, 1] on the training part, the constant last.
        assert!(prep.x_train.iter().all(|v| (0.0..=1.0).contains(v)));
        assert!(prep.x_train.column(prep.x_train.ncols() - 1).iter().all(|&v| v == 1.0));
        assert!(prep.y_train.iter().all(|v| (0.0..=1.0).contains(v)));
    }
}

#[test]
fn a_win_is_more_than_five_percent_better() {
    let ours = [(0, 1.0), (1, 1.0), (2, 1.0), (3, 0.9)];
    let theirs = [(0, 1.06), (1, 1.04), (2, 0.94), (4, 0.5)];
    // Run 0: 1.0 < 0.95·1.06 (win); run 1: tie; run 2: 0.94 < 0.95 (defeat);
    // runs 3 and 4 are not shared.
    assert_eq!(wins_defeats(&ours, &theirs), (1, 1));
    assert_eq!(wins_defeats(&theirs, &ours), (1, 1));
}

#[test]
fn one_hot_expands_named_columns_in_place() {
    let d = Dataset::new(
        array![[1.0, 5.0, 0.5], [3.0, 6.0, 0.25]],
        array![0.0, 1.0],
        Some(vec!["a".into(), "cat".into(), "b".into()]),
        "t",
    )
    .unwrap();
    let x = expand_one_hot(&d, &[("cat", 4, 6)]).unwrap();
    assert_eq!(x, array![[1.0, 0.0, 1.0, 0.0, 0.5], [3.0, 0.0, 0.0, 1.0, 0.25]]);
    assert!(expand_one_hot(&d, &[("cat", 5, 5)]).is_err());
    assert!(expand_one_hot(&d, &[("missing", 0, 1)]).is_err());
}

#[test]
fn every_method_has_a_trainer_and_cells_have_distinct_files() {
    let opts = Options::quick(std::env::temp_dir().join("palagi-seccia-test"));
    let mut files = std::collections::HashSet::new();
    for m in protocol::METHODS {
        assert!(cell::trainer(m, &opts, 0).is_ok());
        for a in 0..5 {
            for r in 0..2 {
                assert!(files.insert(cell::path(&opts.cells_dir, "ccpp", a, m, r, &opts)));
            }
        }
    }
    assert!(cell::trainer("adam", &opts, 0).is_err());
}

/// `--b2ld-per-cycle` gives B2LD the per-cycle stall rule, its own cells
/// (only B2LD's names change: the other methods' cells are shared) and
/// its own report directory.
#[test]
fn the_per_cycle_stall_rule_has_its_own_cells_and_report() {
    use models::dfnn::{DfnnTrainer, StallRule};
    let mut settings = crate::papers::Settings {
        results_dir: std::env::temp_dir().join("palagi-seccia-settings"),
        ..Default::default()
    };
    let plain = protocol::options_from(&settings, false);
    settings.palagi_seccia.b2ld_per_cycle = true;
    let per_cycle = protocol::options_from(&settings, false);
    assert_eq!(plain.b2ld_stall, StallRule::ForGood);
    assert_eq!(per_cycle.b2ld_stall, StallRule::PerCycle);
    assert!(per_cycle.out_dir.ends_with("palagi-seccia-percycle"));
    assert!(plain.out_dir.ends_with("palagi-seccia"));
    assert_eq!(per_cycle.cells_dir, plain.cells_dir);
    match cell::trainer("b2ld", &per_cycle, 0) {
        Ok(DfnnTrainer::B2ld(b)) => assert_eq!(b.stall, StallRule::PerCycle),
        other => panic!("{other:?}"),
    }
    let name = |o: &Options, m: &str| cell::path(std::path::Path::new(""), "ccpp", 0, m, 0, o);
    assert_ne!(name(&plain, "b2ld"), name(&per_cycle, "b2ld"));
    assert!(name(&per_cycle, "b2ld").to_string_lossy().contains("-percycle-"));
    assert_eq!(name(&plain, "lbfgs"), name(&per_cycle, "lbfgs"));
}

/// L-BFGS's rule checked every iteration (B2LD's rule is checked after
/// every update, so the two are read the same way): its own L-BFGS cells,
/// shared cells of the other methods, its own report directory and flag.
#[test]
fn the_per_iteration_lbfgs_rule_has_its_own_cells_and_report() {
    use models::dfnn::DfnnTrainer;
    let mut settings = crate::papers::Settings {
        results_dir: std::env::temp_dir().join("palagi-seccia-settings"),
        ..Default::default()
    };
    let plain = protocol::options_from(&settings, false);
    settings.palagi_seccia.lbfgs_per_iteration = true;
    settings.palagi_seccia.time_scale = Some(0.3);
    let per_iter = protocol::options_from(&settings, false);
    assert_eq!(plain.lbfgs_window, 30);
    assert_eq!(per_iter.lbfgs_window, 1);
    assert!(per_iter.out_dir.ends_with("palagi-seccia-lbfgsperiter-scale0.3"));
    assert_eq!(per_iter.cells_dir, plain.cells_dir);
    match (cell::trainer("lbfgs", &plain, 0), cell::trainer("lbfgs", &per_iter, 0)) {
        (Ok(DfnnTrainer::Lbfgs(a)), Ok(DfnnTrainer::Lbfgs(b))) => assert_eq!((a.window, b.window), (30, 1)),
        other => panic!("{other:?}"),
    }
    let name = |o: &Options, m: &str| {
        cell::path(std::path::Path::new(""), "ccpp", 0, m, 0, o)
            .to_string_lossy()
            .into_owned()
    };
    assert_eq!(name(&per_iter, "lbfgs"), "ccpp-a0-lbfgs-periter-run0-t45000ms.json");
    assert_eq!(name(&per_iter, "b2ld"), "ccpp-a0-b2ld-run0-t45000ms.json");
    assert!(!name(&plain, "lbfgs").contains("periter"));
    assert_eq!(
        super::report::run_flags(&per_iter),
        " -- --lbfgs-per-iteration --time-scale 0.3"
    );
}

/// A full run at another time scale, or with B2LD's per-cycle rule, writes
/// its report into a folder of its own and shares the cell store; the
/// report's first line names the flags that rerun it.
#[test]
fn runs_under_other_settings_report_apart_and_share_cells() {
    use super::protocol::{options_from, out_dir_name, PalagiSecciaSettings};
    let base = PalagiSecciaSettings::default();
    assert_eq!(out_dir_name(&base, false), "palagi-seccia");
    let scaled = PalagiSecciaSettings {
        time_scale: Some(0.3),
        ..PalagiSecciaSettings::default()
    };
    assert_eq!(out_dir_name(&scaled, false), "palagi-seccia-scale0.3");
    // The quick run ignores the scale.
    assert_eq!(out_dir_name(&scaled, true), "palagi-seccia");
    let default_scale = PalagiSecciaSettings {
        time_scale: Some(super::DEFAULT_TIME_SCALE),
        ..PalagiSecciaSettings::default()
    };
    assert_eq!(out_dir_name(&default_scale, false), "palagi-seccia");
    let both = PalagiSecciaSettings {
        time_scale: Some(0.3),
        b2ld_per_cycle: true,
        runs: Some(5),
        architectures: Some(vec![0, 4]),
        ..PalagiSecciaSettings::default()
    };
    assert_eq!(out_dir_name(&both, false), "palagi-seccia-percycle-scale0.3");
    let settings = crate::papers::Settings {
        results_dir: std::path::PathBuf::from("r"),
        palagi_seccia: both,
        ..crate::papers::Settings::default()
    };
    let opts = options_from(&settings, false);
    assert_eq!(opts.out_dir, std::path::Path::new("r/palagi-seccia-percycle-scale0.3"));
    assert_eq!(opts.cells_dir, std::path::Path::new("r/palagi-seccia/cells"));
    assert_eq!(opts.batch_limit.as_secs_f64(), 45.0);
    assert_eq!(
        super::report::run_flags(&opts),
        " -- --b2ld-per-cycle --architectures 0,4 --time-scale 0.3 --runs 5"
    );
    let plain = options_from(&crate::papers::Settings::default(), false);
    assert_eq!(super::report::run_flags(&plain), "");
    // The cell files of the two scales differ.
    let a = cell::path(std::path::Path::new(""), "mv", 0, "lbfgs", 0, &plain);
    let b = cell::path(std::path::Path::new(""), "mv", 0, "lbfgs", 0, &opts);
    assert_ne!(a, b);
}

/// Cells that ran on two machines are flagged, with their counts.
#[test]
fn cells_from_two_machines_are_flagged() {
    let mut c = cell::CellResult {
        dataset: "mv".into(),
        architecture: 0,
        method: "lbfgs".into(),
        run: 0,
        quick: false,
        n_train: 1,
        limit: 12.0,
        seconds: 1.0,
        objective: 1.0,
        gradient_norm: 1.0,
        test_error: 1.0,
        iterations: 1,
        updates_per_layer: vec![],
        termination: String::new(),
        trace: vec![],
        cpu: None,
    };
    let one = super::report::machines_line(std::slice::from_ref(&c));
    assert!(one.starts_with("Cells by machine: 1 on AMD EPYC, 2 cores"), "{one}");
    let mut d = c.clone();
    d.cpu = Some("Intel(R) Xeon(R) Processor, 2 cores".into());
    c.cpu = None;
    let two = super::report::machines_line(&[c.clone(), d.clone(), d]);
    assert!(two.contains("**The cells ran on 2 machines**"), "{two}");
    assert!(
        two.contains("1 on AMD EPYC, 2 cores") && two.contains("2 on Intel(R) Xeon(R) Processor, 2 cores"),
        "{two}"
    );
}
