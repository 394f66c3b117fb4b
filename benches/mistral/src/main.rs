//! mistral.rs through the drop-ins: for now only what makes the package
//! build (`scripts/mistral.sh check` resolves it, nothing runs yet).

fn main() {
    // A type of mistral.rs's API, so that the dependency is used.
    let _ = std::any::type_name::<mistralrs::ModelDType>();
}
