//! The flags of `nn fit` and `nn predict` (clap, derive), their defaults in
//! one place ([`defaults`]), and their resolution into the validated
//! [`FitArgs`] the fit runs on.
//!
//! Each model declares its own flags in its own module ([`super::elm`],
//! [`super::bls`], [`super::slfn`], [`super::dfnn`], [`super::bpls`]; the
//! flags several models share in [`super::shared_flags`]); the common ones
//! are [`CommonFlags`]. A flag of another model given on the command line
//! is an error naming the flag and the models it belongs to
//! ([`FitFlags`]), so a mistyped command never trains silently with a
//! default.

use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, FromArgMatches, Parser, Subcommand};

use super::bls::{BlsArgs, BlsFlags};
use super::bpls::{BplsArgs, BplsFlags};
pub use super::common::{
    defaults, strategy_names, threads_or_all, ActivationArg, CommonFlags, HeaderFlags, ModelKind, Scale, SolverArg,
    StrategyArg, TaskKind,
};
use super::dfnn::{DfnnArgs, DfnnFlags};
use super::elm::{ElmArgs, ElmFlags};
use super::error::CliError;
pub use super::export::ExportFlags;
use super::model_command::{ModelCommand, ModelFlags, Resolved};
pub use super::saved::{PredictFlags, UpdateFlags};
use super::scale_out::ScaleOut;
use super::select::SelectArgs;
use super::slfn::{SlfnArgs, SlfnFlags};
pub use super::trainer::TrainerArg;
use crate::datasets::HeaderMode;

/// `nn`: train a model on your files and predict with it.
#[derive(Debug, Parser)]
#[command(name = "nn", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of `nn`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train a model on TRAIN, evaluate it on TEST, print one JSON object.
    Fit(Box<FitFlags>),
    /// Print the predictions of a saved model on DATA, one per line.
    Predict(PredictFlags),
    /// Add rows to and forget rows from a model saved with --updatable.
    Update(UpdateFlags),
    /// Write a saved model as an ONNX file (every model).
    Export(ExportFlags),
}

/// The models of `nn fit`, one line each: the variant of [`ModelArgs`], the
/// field of [`FitFlags`], the model's flag struct and its settings (both in
/// the model's file, the flags implementing [`ModelFlags`], the settings
/// [`ModelCommand`]). Everything below that lists the models is generated
/// from this list.
macro_rules! models {
    ($($variant:ident($field:ident): $flags:ident => $settings:ident),+ $(,)?) => {
        /// The flags of `nn fit`, as typed on the command line (see
        /// [`FitArgs`] for the resolved values): the common ones and each
        /// model's own.
        ///
        /// Which flag applies to which model comes from the types: each
        /// model's flag struct lists exactly its flags, the ones several
        /// models take flattened from [`super::shared_flags`]. `nn fit`
        /// accepts the union of them all (each flag once; `nn fit --help`
        /// lists them under their models' headings), and
        /// [`FitArgs::resolve`] refuses a flag typed on the command line
        /// that neither [`CommonFlags`] nor the chosen model's struct
        /// declares.
        #[derive(Clone, Debug)]
        pub struct FitFlags {
            /// The flags every model takes.
            pub common: CommonFlags,
            $(
                #[doc = concat!("The flags of `--model ", stringify!($field), "`.")]
                pub $field: $flags,
            )+
            /// The ids of the flags typed on the command line (rather than
            /// defaulted), in clap's order.
            pub typed: Vec<String>,
        }

        /// One model's resolved flags: the one place `nn fit` switches on
        /// the model ([`ModelArgs::command`]); everything else goes through
        /// [`ModelCommand`].
        #[derive(Clone, Debug, PartialEq)]
        pub enum ModelArgs {
            $(
                #[doc = concat!("`--model ", stringify!($field), "`.")]
                $variant($settings),
            )+
        }

        impl ModelArgs {
            /// The model's command.
            pub fn command(&self) -> &dyn ModelCommand {
                match self {
                    $(ModelArgs::$variant(m) => m,)+
                }
            }
        }

        /// Every model's flag struct, as the arguments it adds to a command.
        fn model_commands() -> Vec<(ModelKind, clap::Command)> {
            vec![$((<$flags as ModelFlags>::KIND, <$flags as Args>::augment_args(clap::Command::new("model"))),)+]
        }

        impl FromArgMatches for FitFlags {
            fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
                let typed = m
                    .ids()
                    .filter(|id| m.value_source(id.as_str()) == Some(ValueSource::CommandLine))
                    .map(|id| id.as_str().to_string())
                    .collect();
                Ok(FitFlags {
                    common: CommonFlags::from_arg_matches(m)?,
                    $($field: $flags::from_arg_matches(m)?,)+
                    typed,
                })
            }

            fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
                *self = Self::from_arg_matches(m)?;
                Ok(())
            }
        }

        impl FitFlags {
            /// The chosen model's flags resolved (checked by its own file).
            fn resolve_model(&self, typed: &dyn Fn(&str) -> bool) -> Result<Resolved<ModelArgs>, CliError> {
                $(
                    if self.common.model == <$flags as ModelFlags>::KIND {
                        let r = self.$field.resolve(&self.common, typed)?;
                        return Ok(Resolved {
                            model: ModelArgs::$variant(r.model),
                            scale_out: r.scale_out,
                            select: r.select,
                        });
                    }
                )+
                Err(CliError::Usage(format!("--model {} has no flags", self.common.model.name())))
            }
        }
    };
}

models! {
    Elm(elm): ElmFlags => ElmArgs,
    Bls(bls): BlsFlags => BlsArgs,
    Slfn(slfn): SlfnFlags => SlfnArgs,
    Dfnn(dfnn): DfnnFlags => DfnnArgs,
    Bpls(bpls): BplsFlags => BplsArgs,
}

impl Args for FitFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let mut cmd = CommonFlags::augment_args(cmd);
        for (_, model) in model_commands() {
            for arg in model.get_arguments() {
                if cmd.get_arguments().all(|a| a.get_id() != arg.get_id()) {
                    cmd = cmd.arg(arg.clone());
                }
            }
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FitFlags {
    /// Refuse the first flag typed on the command line that neither the
    /// common flags nor `model`'s flag struct declares.
    ///
    /// # Errors
    /// [`CliError::Usage`]: `--FLAG does not apply to --model NAME: it is a
    /// flag of --model A and --model B` (the models whose flag structs
    /// declare it).
    fn check_applicable(&self, model: ModelKind) -> Result<(), CliError> {
        let common = CommonFlags::augment_args(clap::Command::new("common"));
        let commands = model_commands();
        let own = commands.iter().find(|(kind, _)| *kind == model).map(|(_, c)| c);
        // A flag, or a group of flags (clap reports `HeaderFlags` as typed
        // when `--header` is).
        let declares = |c: &clap::Command, id: &str| {
            c.get_arguments().any(|a| a.get_id().as_str() == id) || c.get_groups().any(|g| g.get_id().as_str() == id)
        };
        let foreign = self
            .typed
            .iter()
            .find(|id| !declares(&common, id) && !own.is_some_and(|c| declares(c, id)));
        match foreign {
            Some(id) => {
                let long = commands
                    .iter()
                    .flat_map(|(_, c)| c.get_arguments())
                    .find(|a| a.get_id().as_str() == id.as_str())
                    .and_then(|a| a.get_long())
                    .map_or_else(|| id.replace('_', "-"), str::to_string);
                let owners: Vec<String> = commands
                    .iter()
                    .filter(|(_, c)| declares(c, id))
                    .map(|(kind, _)| format!("--model {}", kind.name()))
                    .collect();
                let owners = match owners.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                    None => "no model".into(),
                };
                Err(CliError::Usage(format!(
                    "--{long} does not apply to --model {}: it is a flag of {owners}",
                    model.name()
                )))
            }
            None => Ok(()),
        }
    }
}

/// Resolved `fit` arguments: every default applied, every flag checked
/// against `--model`; the model's own in [`ModelArgs`].
#[derive(Clone, Debug, PartialEq)]
pub struct FitArgs {
    /// The model's resolved flags (`--model` and its flags).
    pub model: ModelArgs,
    /// Training file.
    pub train: PathBuf,
    /// Test file.
    pub test: PathBuf,
    /// The task.
    pub task: TaskKind,
    /// Seed of the random maps.
    pub seed: u64,
    /// Input scaling ([`ModelKind::default_scale_for`] unless given).
    pub scale: Scale,
    /// Where to save the fitted model.
    pub save: Option<PathBuf>,
    /// How the first row of a CSV file is read (`--header`, `--no-header`).
    pub header: HeaderMode,
    /// LIBSVM files: the number of features (`--n-features`).
    pub n_features: Option<usize>,
    /// `--updatable` and the other flags for data beyond one fit (the ELM
    /// and the BLS).
    pub scale_out: ScaleOut,
    /// `--select-lambda` or `--grow-until-val`, if given (the ELM and the
    /// BLS).
    pub select: Option<SelectArgs>,
}

impl ModelArgs {
    /// `--model`'s value.
    pub fn kind(&self) -> ModelKind {
        self.command().kind()
    }
}

impl FitArgs {
    /// Resolve the parsed flags: a flag of another model is refused
    /// ([`FitFlags`]), then the chosen model's flags are checked and
    /// resolved by its own module (`elm`, `bls`, `slfn`, `dfnn`, `bpls`).
    ///
    /// # Errors
    /// [`CliError::Usage`] for a flag of another model, a missing
    /// `--hidden` or `--layers`, a value the model refuses, or a `--save`
    /// target that cannot be written.
    pub fn resolve(flags: FitFlags) -> Result<Self, CliError> {
        let kind = flags.common.model;
        flags.check_applicable(kind)?;
        let typed = |id: &str| flags.typed.iter().any(|t| t == id);
        let common = &flags.common;
        let Resolved {
            model,
            scale_out,
            select,
        } = flags.resolve_model(&typed)?;
        check_save(common.save.as_deref(), &[&common.train, &common.test])?;
        Ok(FitArgs {
            model,
            train: common.train.clone(),
            test: common.test.clone(),
            task: common.task,
            seed: common.seed,
            scale: common.scale.unwrap_or(kind.default_scale_for(&common.train)),
            save: common.save.clone(),
            header: common.header.mode(),
            n_features: common.n_features,
            scale_out,
            select,
        })
    }
}

/// `--save FILE` can be written: its directory exists, it is not a
/// directory, device or FIFO, and it is none of the `inputs` (which the fit
/// would overwrite after reading), also through a symbolic or hard link.
/// Checked before the fit, so that an hour of training is not lost to a typo.
fn check_save(save: Option<&std::path::Path>, inputs: &[&std::path::Path]) -> Result<(), CliError> {
    let Some(save) = save else {
        return Ok(());
    };
    if save.is_dir() {
        return Err(CliError::Usage(format!(
            "--save {}: is a directory; give a file name",
            save.display()
        )));
    }
    super::saved::check_save_target("--save", save, inputs)
}

/// `nn fit ARGS…` parsed and resolved as the binary does (for unit tests).
#[cfg(test)]
pub(crate) fn resolve_fit(args: &[&str]) -> Result<FitArgs, String> {
    use clap::CommandFactory;
    let m = Cli::command()
        .try_get_matches_from(["nn", "fit"].iter().chain(args))
        .map_err(|e| e.to_string())?;
    let Some(("fit", sub)) = m.subcommand() else {
        return Err("no fit".into());
    };
    let flags = FitFlags::from_arg_matches(sub).map_err(|e| e.to_string())?;
    FitArgs::resolve(flags).map_err(|e| e.to_string())
}

#[cfg(test)]
#[path = "args_tests.rs"]
mod tests;
