//! Reading the record files of `build`, `import` and `analyse
//! --grow-from`, with a progress bar over their bytes.

use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use xqrecords::encoding::TextEncoding;
use xqrecords::{read_file, ReadOptions, Records};

/// How record files are read, for `build` and `import`.
#[derive(clap::Args)]
pub struct ReadArgs {
    /// Text encoding of the records (default: detected per file).
    #[arg(long, value_parser = parse_encoding)]
    pub encoding: Option<TextEncoding>,
    /// Also take the variations of XQF files, each line as a game.
    #[arg(long)]
    pub variations: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

fn parse_encoding(s: &str) -> Result<TextEncoding, xqrecords::encoding::UnknownEncoding> {
    s.parse()
}

/// A progress bar over the bytes of `files` (hidden when quiet).
fn progress(files: &[PathBuf], quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bytes = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let bar = ProgressBar::new(bytes);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {eta} {wide_msg}")
            .expect("a valid template"),
    );
    bar
}

/// Reads the record files with a progress bar over their bytes. Files for
/// which `skip` says so are passed over; `each` gets what every other file
/// gave, after its unreadable games are listed (at most `show` lines in
/// all). A file that cannot be read at all is reported and passed over.
pub fn read_files(
    files: &[PathBuf],
    read: &ReadArgs,
    show: usize,
    mut skip: impl FnMut(&Path) -> xqcli::Result<bool>,
    mut each: impl FnMut(&Path, Records) -> xqcli::Result,
) -> xqcli::Result {
    let bar = progress(files, read.quiet);
    let mut done = 0;
    let mut shown = 0;
    for path in files {
        bar.set_message(path.display().to_string());
        if !skip(path)? {
            let options = ReadOptions {
                encoding: read.encoding,
                variations: read.variations,
            };
            match read_file(path, &options, &|n| bar.inc(n)) {
                Ok(games) => {
                    for e in games.errors.iter().take(show.saturating_sub(shown)) {
                        bar.suspend(|| eprintln!("skipped: {}: {e}", path.display()));
                        shown += 1;
                    }
                    each(path, games)?;
                }
                Err(e) => bar.suspend(|| eprintln!("bookgen: skipping {e}")),
            }
        }
        // Whatever the file gave, it is done: unreadable or skipped files too.
        done += std::fs::metadata(path).map_or(0, |m| m.len());
        bar.set_position(done);
    }
    bar.finish_and_clear();
    Ok(())
}
