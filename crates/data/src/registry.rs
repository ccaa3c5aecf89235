//! The datasets shipped in the workspace's `data/` folder, by name.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use super::error::DataError;
use super::{load_any, Dataset};

/// Environment variable naming a data folder to use instead of the workspace's `data/`.
pub const DATA_DIR_ENV: &str = "DECOMP_NN_DATA";

/// The shipped datasets: name and path relative to the data folder.
const SHIPPED: [(&str, &str); 26] = [
    ("mnist-train", "mnist/train-images-idx3-ubyte.gz"),
    ("mnist-test", "mnist/t10k-images-idx3-ubyte.gz"),
    ("airfoil", "airfoil/airfoil.csv.gz"),
    ("energy-heating", "energy_efficiency/energy_heating.csv.gz"),
    ("boston", "boston/boston.csv.gz"),
    ("protein", "protein/protein.csv.gz"),
    ("magic", "magic/magic.csv.gz"),
    ("musk1", "musk1/musk1.csv.gz"),
    ("pima", "pima/pima.csv.gz"),
    ("adult-train", "adult/adult_train.csv.gz"),
    ("adult-test", "adult/adult_test.csv.gz"),
    ("codrna-train", "codrna/codrna_train.csv.gz"),
    ("codrna-rest", "codrna/codrna_rest.csv.gz"),
    ("ringnorm", "ringnorm/ringnorm.csv.gz"),
    ("satellite-train", "satellite/satellite_train.csv.gz"),
    ("satellite-test", "satellite/satellite_test.csv.gz"),
    ("mv", "mv/mv.csv.gz"),
    ("california", "california_housing/california_housing.csv.gz"),
    ("census-house16h", "census_house16h/census_house16h.csv.gz"),
    ("delta-elevators", "delta_elevators/delta_elevators.csv.gz"),
    ("elevators", "elevators/elevators.csv.gz"),
    ("ailerons", "ailerons/ailerons.csv.gz"),
    ("bike-sharing", "bike_sharing/bike_sharing_hour.csv.gz"),
    ("beijing-pm25", "beijing_pm25/beijing_pm25.csv.gz"),
    ("ccpp", "ccpp/ccpp.csv.gz"),
    ("bank-marketing", "bank_marketing/bank_full.csv.gz"),
];

/// The names [`shipped`] knows, in the order of `data/README.md`'s table.
const NAMES: [&str; 26] = [
    "mnist-train",
    "mnist-test",
    "airfoil",
    "energy-heating",
    "boston",
    "protein",
    "magic",
    "musk1",
    "pima",
    "adult-train",
    "adult-test",
    "codrna-train",
    "codrna-rest",
    "ringnorm",
    "satellite-train",
    "satellite-test",
    "mv",
    "california",
    "census-house16h",
    "delta-elevators",
    "elevators",
    "ailerons",
    "bike-sharing",
    "beijing-pm25",
    "ccpp",
    "bank-marketing",
];

/// The names of the shipped datasets (`mnist-train`, `airfoil`, …).
pub fn names() -> &'static [&'static str] {
    &NAMES
}

/// The data folder given the value of [`DATA_DIR_ENV`]: that value when set and non-empty, else the
/// workspace's `data/` (two levels above this crate's manifest).
fn resolve_data_dir(env: Option<OsString>) -> PathBuf {
    match env {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => {
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            match manifest.ancestors().nth(2) {
                Some(root) => root.join("data"),
                None => manifest.join("../../data"),
            }
        }
    }
}

/// The folder holding the shipped data: `$DECOMP_NN_DATA` when set and non-empty, else the
/// workspace's `data/`.
pub fn data_dir() -> PathBuf {
    resolve_data_dir(std::env::var_os(DATA_DIR_ENV))
}

/// The file of the shipped dataset `name` (one of [`names`]); for MNIST, the images file, whose labels
/// lie beside it.
///
/// Fails with [`DataError::InvalidArgument`] for an unknown name and with [`DataError::Io`] when the
/// file is missing.
pub fn shipped(name: &str) -> Result<PathBuf, DataError> {
    let Some(&(_, relative)) = SHIPPED.iter().find(|(n, _)| *n == name) else {
        return Err(DataError::invalid(format!(
            "unknown shipped dataset {name:?}; known: {}",
            NAMES.join(", ")
        )));
    };
    let path = data_dir().join(relative);
    if !path.is_file() {
        return Err(DataError::io(
            &path,
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("shipped dataset {name:?} is missing (set {DATA_DIR_ENV} to the data folder)"),
            ),
        ));
    }
    Ok(path)
}

/// Loads the shipped dataset `name` (see [`shipped`] and [`load_any`]).
pub fn load_shipped(name: &str) -> Result<Dataset, DataError> {
    load_any(shipped(name)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_table_agree() {
        let table: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
        assert_eq!(table, names());
    }

    #[test]
    fn env_override_wins_when_non_empty() {
        assert_eq!(resolve_data_dir(Some("/elsewhere".into())), PathBuf::from("/elsewhere"));
        let default = resolve_data_dir(None);
        assert!(default.ends_with("data"));
        assert_eq!(resolve_data_dir(Some(OsString::new())), default);
    }

    #[test]
    fn unknown_name_is_an_invalid_argument() {
        assert!(matches!(shipped("iris"), Err(DataError::InvalidArgument { .. })));
    }
}
