//! `host new NAME [--lang rust|python|js|ts]`: a script project, ready to run.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, ValueEnum};
use game_host::game_types::GameTypes;
use game_host_build::componentize::{self, Language};
use game_host_build::editor_types::{self, PYRIGHT, Refreshed, TYPES_DIR, TYPESCRIPT};
use game_host_build::project::{self, ProjectLanguage};

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The project's directory (created; must not exist or be empty). Its
    /// name is the script's name.
    path: PathBuf,

    /// The language to write the script in.
    #[arg(long, value_enum, default_value_t = Lang::Rust)]
    lang: Lang,

    /// Make it for a game: the game's description (as `host run --game`
    /// takes it), whose components and resources the script then reads
    /// and writes typed (the book: Game types).
    #[arg(long, value_name = "FILE")]
    game: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Lang {
    Rust,
    Python,
    Js,
    Ts,
}

pub fn new(args: NewArgs) -> Result<ExitCode> {
    let language = match args.lang {
        Lang::Rust => ProjectLanguage::Rust,
        Lang::Python => ProjectLanguage::Python,
        Lang::Js => ProjectLanguage::JavaScript,
        Lang::Ts => ProjectLanguage::TypeScript,
    };
    let game = args.game.as_deref().map(GameTypes::read).transpose()?;
    let files = project::create(&args.path, language, game.as_ref())?;
    let shown = args.path.display();
    eprintln!("created `{shown}`:");
    for file in files {
        eprintln!("  {}", file.display());
    }
    let foreign = match language {
        ProjectLanguage::Rust => None,
        ProjectLanguage::Python => Some((Language::Python, PYRIGHT)),
        ProjectLanguage::JavaScript => Some((Language::JavaScript, TYPESCRIPT)),
        ProjectLanguage::TypeScript => Some((Language::TypeScript, TYPESCRIPT)),
    };
    if let Some((language, checker)) = foreign {
        let entry = args.path.join(language.entry_file());
        match editor_types::refresh(language, &entry, true) {
            Ok(Refreshed::ToolMissing(missing)) => {
                eprintln!("  (no editor types: {missing}; then `host check {shown}`)")
            }
            Ok(_) => eprintln!(
                "  {TYPES_DIR}/ (editor types: the engine's API for your editor and {})",
                checker.program
            ),
            Err(error) => eprintln!("  (no editor types: {error:#})"),
        }
    }
    // What running it needs, said only when it is missing here (a host
    // from pip or npm brings its language's tool).
    let needs = match foreign {
        None => Some("(this needs a Rust toolchain with `rustup target add wasm32-wasip2`)".into()),
        Some((language, _)) => componentize::tool_missing(language).map(|line| format!("({line})")),
    };
    let game_arg = match &args.game {
        Some(file) => format!(" --game {}", file.display()),
        None => String::new(),
    };
    eprintln!(
        "run it:  host run {shown}{game_arg} --headless --frames 60\n\
         edit it while it runs:  host run {shown}{game_arg} --watch\n\
         check its types:  host check {shown}"
    );
    if let Some(needs) = needs {
        eprintln!("{needs}");
    }
    Ok(ExitCode::SUCCESS)
}
