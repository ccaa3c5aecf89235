//! `reproduce [PAPER…] [--quick] [OPTIONS]` — run through `cargo xtask
//! reproduce`. Writes `results/<paper>/` (report.md, CSV, JSON, SVG).
//! `reproduce --list` prints the registry ([`experiments::papers::REGISTRY`]),
//! one `name<TAB>description` line per paper.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use experiments::papers::{
    self, Blas, BlsRidgeSettings, GrippoDecSettings, PalagiSecciaSettings, Settings, TomicBplsSettings, REGISTRY,
};
use linalg_core::ridge::Strategy;

/// Rerun the papers' experiments and write their reports.
#[derive(Debug, Parser)]
#[command(name = "reproduce", args_override_self = true)]
struct Args {
    /// Papers to reproduce, by name (see --list) [default: all of them].
    #[arg(value_parser = paper_name)]
    papers: Vec<String>,

    /// The quick runs: the same tables on smaller problems (minutes).
    #[arg(long)]
    quick: bool,

    /// Print the reproductions (name, tab, description) and exit.
    #[arg(long)]
    list: bool,

    /// Where each paper writes `<paper>/` [default: the workspace's `results/`].
    #[arg(long, value_name = "DIR")]
    results_dir: Option<PathBuf>,

    /// networks per (λ, strategy) cell [default: 2 with --quick, 1 otherwise].
    #[arg(long, value_name = "N", help_heading = "bls-ridge")]
    seeds: Option<usize>,

    /// λ = 2^E for these E, comma-separated [default: -30,-25,-20,-15,-10,-5].
    #[arg(long, value_name = "E,E,…", allow_hyphen_values = true, value_parser = exponents, help_heading = "bls-ridge")]
    lambdas: Option<Exponents>,

    /// strategies in run order, comma-separated [default: orig,exg-e,chol1,chol2,r-inv,d-rdg].
    #[arg(long, value_name = "S,S,…", value_parser = strategies, help_heading = "bls-ridge")]
    strategies: Option<Strategies>,

    /// start no new cell after M minutes; the report is still written [default: no limit].
    #[arg(
        long,
        value_name = "M",
        help_heading = "bls-ridge, grippo-dec, palagi-seccia and tomic-bpls"
    )]
    time_budget_min: Option<f64>,

    /// starting points per cell [default: 1 with --quick, 10 otherwise]; tomic-bpls: BPLS runs and backprop runs per rule [default: 2 and 1 with --quick, 10 and 5 otherwise].
    #[arg(long, value_name = "R", help_heading = "grippo-dec, palagi-seccia and tomic-bpls")]
    runs: Option<usize>,

    /// only these data sets, comma-separated: grippo-dec's paper names (cod-rna, magic, ringnorm, satellite, diabetes, mv, california, census, deltaelv, elevators, aileron) or palagi-seccia's (ailerons, bank, pm25, bikes, california, ccpp, mv) [default: all].
    #[arg(
        long,
        value_name = "D,D,…",
        value_delimiter = ',',
        help_heading = "grippo-dec and palagi-seccia"
    )]
    datasets: Option<Vec<String>>,

    /// z-score the features instead of using them as given; report in grippo-dec-zscore/.
    #[arg(long, help_heading = "grippo-dec")]
    zscore: bool,

    /// only these networks, comma-separated indices: 0 = [1x50], 1 = [3x20], 2 = [200,50,200], 3 = [5x50], 4 = [10x50] [default: all].
    #[arg(long, value_name = "A,A,…", value_delimiter = ',', help_heading = "palagi-seccia")]
    architectures: Option<Vec<usize>>,

    /// the full run's time limits as a fraction of the paper's 150 s and 60 s [default: 0.08].
    #[arg(long, value_name = "S", help_heading = "palagi-seccia")]
    time_scale: Option<f64>,

    /// cells run at once, one BLAS thread each [default: 2].
    #[arg(long, value_name = "W", help_heading = "palagi-seccia")]
    workers: Option<usize>,

    /// B2LD's stall rule judged per cycle (every block updated every cycle; stop after a cycle in which all stalled) instead of a stalled block dropped for good; report in palagi-seccia-percycle/.
    #[arg(long, help_heading = "palagi-seccia")]
    b2ld_per_cycle: bool,

    /// L-BFGS's relative-decrease rule checked after every iteration instead of over its 30-iteration calls (B2LD's rule is checked after every block update); report in a folder with -lbfgsperiter.
    #[arg(long, help_heading = "palagi-seccia")]
    lbfgs_per_iteration: bool,

    /// stop each cell after update U: a shorter schedule for diagnostics, its cells named k60000-uU-… [default: 11].
    #[arg(long, value_name = "U", help_heading = "bls-ridge")]
    updates: Option<usize>,

    /// store A in f64 for every strategy (Orig. and R-Inv then need about 24 GB by update 11: use with --updates).
    #[arg(long = "f64", help_heading = "bls-ridge")]
    f64_storage: bool,

    /// orthonormalize the enhancement weights as Chen & Liu's MATLAB code does (orth of the uniform draw); such cells are kept as …-orth.json and set aside from the tables' means.
    #[arg(long, help_heading = "bls-ridge")]
    orthonormal_enhancement: bool,

    /// where finished cells are kept and reused [default: cells/ in the --out directory].
    #[arg(long, value_name = "DIR", help_heading = "bls-ridge")]
    cells: Option<PathBuf>,

    /// the report's directory [default: bls-ridge/ in the --results-dir].
    #[arg(long, value_name = "DIR", help_heading = "bls-ridge")]
    out: Option<PathBuf>,
    /// an MNIST-style directory of IDX files (train-images-idx3-ubyte[.gz], t10k-images-idx3-ubyte[.gz] and their labels), e.g. Fashion-MNIST; the report goes to tomic-bpls-<dir name>/ [default: the shipped MNIST].
    #[arg(long, value_name = "DIR", help_heading = "tomic-bpls")]
    data_dir: Option<PathBuf>,
}

/// A comma-separated list of λ exponents.
#[derive(Clone, Debug)]
struct Exponents(Vec<i32>);

/// A comma-separated list of strategies.
#[derive(Clone, Debug)]
struct Strategies(Vec<Strategy>);

fn paper_name(s: &str) -> Result<String, String> {
    match papers::find(s) {
        Some(p) => Ok(p.name.to_string()),
        None => {
            let names: Vec<&str> = REGISTRY.iter().map(|p| p.name).collect();
            Err(format!("unknown paper; valid names: {}", names.join(", ")))
        }
    }
}

fn exponents(s: &str) -> Result<Exponents, String> {
    s.split(',')
        .map(|e| e.trim().parse::<i32>().map_err(|err| format!("`{}`: {err}", e.trim())))
        .collect::<Result<_, _>>()
        .map(Exponents)
}

fn strategies(s: &str) -> Result<Strategies, String> {
    s.split(',')
        .map(|name| name.trim().parse::<Strategy>().map_err(|err| err.to_string()))
        .collect::<Result<_, _>>()
        .map(Strategies)
}

fn main() -> ExitCode {
    // OpenBLAS's kernel for this CPU when the library fell back to a generic
    // one (issue 37); returns only when nothing is to change or it failed.
    if let Err(e) = linalg_core::blas_kernel::reexec_with_chosen_kernel() {
        eprintln!("reproduce: warning: could not start again with a kernel for this CPU ({e})");
    }
    let args = Args::parse();
    if args.list {
        for p in REGISTRY {
            println!("{}\t{}", p.name, p.description);
        }
        return ExitCode::SUCCESS;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let settings = Settings {
        results_dir: args.results_dir.unwrap_or_else(|| root.join("results")),
        bls_ridge: BlsRidgeSettings {
            out: args.out,
            cells: args.cells,
            seeds: args.seeds,
            lambda_exps: args.lambdas.map(|l| l.0),
            strategies: args.strategies.map(|s| s.0),
            time_budget_min: args.time_budget_min,
            updates: args.updates,
            f64_storage: args.f64_storage,
            orthonormal_enhancement: args.orthonormal_enhancement,
        },
        grippo_dec: GrippoDecSettings {
            runs: args.runs,
            datasets: args.datasets.clone(),
            time_budget_min: args.time_budget_min,
            zscore: args.zscore,
        },
        palagi_seccia: PalagiSecciaSettings {
            runs: args.runs,
            datasets: args.datasets,
            architectures: args.architectures,
            time_scale: args.time_scale,
            workers: args.workers,
            time_budget_min: args.time_budget_min,
            b2ld_per_cycle: args.b2ld_per_cycle,
            lbfgs_per_iteration: args.lbfgs_per_iteration,
        },
        tomic_bpls: TomicBplsSettings {
            data_dir: args.data_dir,
            runs: args.runs,
            time_budget_min: args.time_budget_min,
        },
        // The papers set each cell's OpenBLAS thread count through this
        // capability; they never set it themselves.
        blas: Blas::new(Arc::new(experiments::machine::OpenBlasThreads)),
    };
    let wanted: Vec<&papers::Paper> = if args.papers.is_empty() {
        REGISTRY.iter().collect()
    } else {
        args.papers.iter().filter_map(|name| papers::find(name)).collect()
    };
    for paper in wanted {
        let (runner, what, duration) = if args.quick {
            (paper.quick, "quick run", paper.quick_duration)
        } else {
            (paper.full, "full protocol", paper.full_duration)
        };
        eprintln!("reproduce {}: {what} (expected duration: {duration})", paper.name);
        match runner(&settings) {
            Ok(path) => println!("{}: report written to {}", paper.name, path.display()),
            Err(e) => {
                eprintln!("reproduce {}: error: {e}", paper.name);
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("reproduce").chain(args.iter().copied()))
    }

    /// The flags quoted in the README and the reports keep working.
    #[test]
    fn documented_commands_parse() -> Result<(), clap::Error> {
        let a = parse(&["bls-ridge", "--quick", "--time-budget-min", "30", "--seeds", "2"])?;
        assert_eq!(a.papers, ["bls-ridge"]);
        assert!(a.quick);
        assert_eq!((a.seeds, a.time_budget_min), (Some(2), Some(30.0)));
        let a = parse(&[
            "bls-ridge",
            "--lambdas",
            "-30,-25, -5",
            "--strategies",
            "chol1,D-Rdg",
            "--cells",
            "c",
            "--out",
            "o",
        ])?;
        assert_eq!(a.lambdas.map(|l| l.0), Some(vec![-30, -25, -5]));
        assert_eq!(a.strategies.map(|s| s.0), Some(vec![Strategy::Chol1, Strategy::DRdg]));
        assert_eq!((a.cells, a.out), (Some("c".into()), Some("o".into())));
        // The last of a repeated flag wins, as before.
        assert_eq!(parse(&["--seeds", "1", "--seeds", "3"])?.seeds, Some(3));
        assert!(parse(&["--list"])?.list);
        assert!(parse(&[])?.papers.is_empty());
        Ok(())
    }

    /// Unknown flags, unknown papers and bad values are errors, not ignored.
    #[test]
    fn unknown_or_stray_arguments_are_errors() {
        for bad in [
            &["--frobnicate"][..],
            &["dec"],
            &["zhu-wei", "stray"],
            &["--seeds", "two"],
            &["--lambdas", "-30,x"],
            &["--strategies", "chol3"],
            &["--seeds"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
