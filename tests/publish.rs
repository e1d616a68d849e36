//! `adjutant publish` and `verify` of what it writes (issue 17): what a
//! third party needs to check a game, and nothing else; a folder or one
//! `.tar.gz`, verified in one command; hostile archives refused.

mod common;
use common::*;

use std::io::Read;
use std::path::Path;

/// Whether `needle` occurs in `haystack`, ASCII case ignored.
fn contains(haystack: &[u8], needle: &str) -> bool {
    memchr::memmem::find(&haystack.to_ascii_lowercase(), needle.to_ascii_lowercase().as_bytes()).is_some()
}

/// The demo game played to its end, given mail settings (the folder
/// transport), a mailed outbox, an orders file waiting in the inbox and
/// standing orders: everything a referee's folder holds. Returns the
/// folder and every secret or address it holds.
fn full_game(d: &Path) -> (std::path::PathBuf, Vec<String>) {
    run(d, &["demo", "--keep", "demo"]).ok();
    let game = d.join("demo/savannah");
    let config = std::fs::read_to_string(game.join("game.yaml")).unwrap();
    std::fs::write(
        game.join("game.yaml"),
        config + "mail:\n  from: Referee <referee@club.example.net>\n  transport: folder\n",
    )
    .unwrap();
    let g = game.to_str().unwrap();
    run(d, &["mail", "--dir", g]).ok();
    assert!(game.join("outbox").is_dir() && game.join("mailed.yaml").is_file());
    let top = std::fs::read_to_string(game.join(".secret/chain-top")).unwrap().trim().to_string();
    let secrets = vec![
        top.clone(),
        top.to_uppercase(),
        "prevost@example.org".into(),
        "destaing@example.org".into(),
        "lincoln@example.org".into(),
        "referee@club.example.net".into(),
    ];
    (game, secrets)
}

/// Every file of a `.tar.gz`, by its path in the archive, with its bytes,
/// read with the tar crate (independent of adjutant's unpacking).
fn tarball_files(path: &Path) -> Vec<(String, Vec<u8>)> {
    let file = std::fs::File::open(path).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut out = Vec::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().to_string_lossy().into_owned();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        let header = entry.header();
        assert_eq!((header.mtime().unwrap(), header.uid().unwrap(), header.gid().unwrap()), (0, 0, 0), "{name}");
        out.push((name, bytes));
    }
    out
}

#[test]
fn a_published_game_holds_what_verify_needs_and_no_address_or_secret() {
    let t = temp();
    let d = t.path();
    let (game, secrets) = full_game(d);
    let g = game.to_str().unwrap();

    let text = run(d, &["publish", "--dir", g, "club.tar.gz"]).ok();
    assert!(text.starts_with("published savannah-demo as club.tar.gz: "), "{text}");
    run(d, &["publish", "--dir", g, "club"]).ok();

    // What the copy holds: exactly game.yaml, state.yaml, journal/,
    // orders/ and reports/, the same files in the folder and the archive.
    let folder: Vec<String> = all_files(&d.join("club"))
        .into_iter()
        .map(|(p, _)| p.strip_prefix(d.join("club")).unwrap().to_string_lossy().into_owned())
        .collect();
    for name in &folder {
        let kept = name == "game.yaml"
            || name == "state.yaml"
            || ["journal/", "orders/", "reports/"].iter().any(|dir| name.starts_with(dir));
        assert!(kept, "{name} should not be published");
    }
    let original: Vec<String> = all_files(&game)
        .into_iter()
        .map(|(p, _)| p.strip_prefix(&game).unwrap().to_string_lossy().into_owned())
        .filter(|n| ["journal/", "orders/", "reports/"].iter().any(|dir| n.starts_with(dir)))
        .collect();
    assert_eq!(folder.len(), original.len() + 2, "every journal entry, orders file and report, game.yaml, state.yaml");
    let archive = tarball_files(&d.join("club.tar.gz"));
    let mut in_archive: Vec<String> =
        archive.iter().filter(|(n, _)| !n.ends_with('/')).map(|(n, _)| n.trim_start_matches("club/").into()).collect();
    in_archive.sort();
    assert_eq!(in_archive, folder);

    // No address, no secret, in any file of either form.
    let mut scanned = 0;
    for (path, bytes) in all_files(&d.join("club")).into_iter().chain(archive.into_iter().map(|(n, b)| (n.into(), b))) {
        for secret in &secrets {
            assert!(!contains(&bytes, secret), "{} holds {secret}", path.display());
        }
        scanned += 1;
    }
    assert!(scanned > 600, "{scanned} files scanned");
    let config = std::fs::read_to_string(d.join("club/game.yaml")).unwrap();
    assert!(config.contains("name: Augustine Prevost") && config.contains("published: true"), "{config}");
    assert!(!config.contains("mail:") && !config.contains("email:"), "{config}");

    // Anyone verifies either form in one command; the verdict says the
    // players were not checked, as the copy withholds their addresses.
    let out = run(d, &["verify", "club.tar.gz"]).ok();
    assert!(out.starts_with("verified club.tar.gz: 29 steps and 20 rolls recompute"), "{out}");
    assert!(out.contains("a published copy: it withholds the players' addresses"), "{out}");
    let json = run(d, &["verify", "club", "--format", "json"]).json();
    assert_eq!(
        (json["ok"].as_bool(), json["published"].as_bool(), json["steps"].as_u64()),
        (Some(true), Some(true), Some(29))
    );
    // The same game gives the same bytes.
    std::fs::create_dir(d.join("again")).unwrap();
    run(d, &["publish", "--dir", g, "again/club.tar.gz"]).ok();
    let (first, again) =
        (std::fs::read(d.join("club.tar.gz")).unwrap(), std::fs::read(d.join("again/club.tar.gz")).unwrap());
    assert!(first == again, "two publications of one game differ ({} and {} bytes)", first.len(), again.len());
    // The referee's own folder is unchanged in what verify sees.
    run(d, &["verify", "--dir", g]).ok();
}

#[test]
fn a_published_copy_is_checked_as_strictly_and_never_written() {
    let t = temp();
    let d = t.path();
    let (game, _) = full_game(d);
    run(d, &["publish", "--dir", game.to_str().unwrap(), "club"]).ok();

    // No command writes a published copy.
    let err = run(d, &["resolve", "--dir", "club"]).fails(1);
    assert!(err.contains("club: a copy made by `adjutant publish`, to be verified"), "{err}");
    let err = run(d, &["submit", "--dir", "club", demo_orders("16-set-up--british").to_str().unwrap()]).fails(1);
    assert!(err.contains("not played: no command writes it"), "{err}");

    // What a published copy must not hold is named by verify.
    let copy = d.join("strays");
    copy_dir(&d.join("club"), &copy);
    std::fs::create_dir(copy.join("inbox")).unwrap();
    let out = run(d, &["verify", "strays"]).exits(1);
    assert!(out.contains("files check: ") && out.contains("inbox/"), "{out}");

    // A journal entry changed in the copy fails, named.
    let copy = d.join("forged");
    copy_dir(&d.join("club"), &copy);
    let entry = copy.join("journal/000005.yaml");
    let text = std::fs::read_to_string(&entry).unwrap();
    std::fs::write(&entry, text.replacen("step: 5", "step: 6", 1)).unwrap();
    let out = run(d, &["verify", "forged"]).exits(1);
    assert!(out.starts_with("FAILED forged: journal/000005.yaml"), "{out}");

    // Addresses restored by hand into a copy's game.yaml are still not
    // checked against the journal (a copy says it withholds them); the
    // game.yaml of a copy that says it is not published is the referee's.
    let copy = d.join("unmarked");
    copy_dir(&d.join("club"), &copy);
    let config = std::fs::read_to_string(copy.join("game.yaml")).unwrap();
    std::fs::write(copy.join("game.yaml"), config.replace("published: true\n", "")).unwrap();
    let out = run(d, &["verify", "unmarked"]).exits(1);
    assert!(out.contains("players check: players: a name or address differs"), "{out}");
}

#[test]
fn an_address_in_an_orders_file_stops_the_publication_and_nothing_is_written() {
    let t = temp();
    let d = t.path();
    let game = new_demo_game(d);
    let g = game.to_str().unwrap();
    let mut orders = std::fs::read_to_string(demo_orders("16-set-up--british")).unwrap();
    orders += "# sent by Prevost@Example.org\n";
    std::fs::write(d.join("set-up.yaml"), orders).unwrap();
    run(d, &["resolve", "--dir", g, "set-up.yaml"]).ok();
    let err = run(d, &["publish", "--dir", g, "out.tar.gz"]).fails(1);
    assert_eq!(
        err,
        "error: orders/000001-british.yaml holds the address of british's player: a published copy must not; \
         nothing was written (an orders file is published byte for byte, as the journal commits to its SHA-256)\n"
    );
    assert!(!d.join("out.tar.gz").exists());
    let err = run(d, &["publish", "--dir", g, "out"]).fails(1);
    assert!(err.contains("nothing was written"), "{err}");
    assert!(!d.join("out").exists());
}

/// A `.tar.gz` of the given entries (name, kind, bytes), as a hostile
/// sender would make it.
fn hostile(entries: &[(&str, tar::EntryType, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, kind, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(*kind);
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        if *kind == tar::EntryType::Symlink {
            header.set_link_name("/etc/passwd").unwrap();
        }
        // Written raw: the tar crate refuses to make a '..' path itself.
        let raw = header.as_old_mut();
        raw.name = [0; 100];
        raw.name[..name.len()].copy_from_slice(name.as_bytes());
        header.set_cksum();
        builder.append(&header, *bytes).unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &tar).unwrap();
    gz.finish().unwrap()
}

#[test]
fn a_hostile_tarball_is_refused_named_and_nothing_is_written_outside() {
    let t = temp();
    let d = t.path();
    let file = tar::EntryType::Regular;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "dots.tar.gz",
            hostile(&[("g/../../escaped", file, b"x")]),
            "entry 'g/../../escaped': an absolute path or a '..'",
        ),
        ("abs.tar.gz", hostile(&[("/tmp/escaped", file, b"x")]), "entry '/tmp/escaped': an absolute path or a '..'"),
        (
            "link.tar.gz",
            hostile(&[("g/game.yaml", tar::EntryType::Symlink, b"")]),
            "entry 'g/game.yaml': not a plain file or folder (a link or a device)",
        ),
        (
            "two.tar.gz",
            hostile(&[("g/game.yaml", file, b"x"), ("h/game.yaml", file, b"x")]),
            "entry 'h/game.yaml' is outside the one folder 'g' a published copy is",
        ),
        ("plain.tar.gz", b"not gzip at all".to_vec(), "not a .tar.gz"),
        ("empty.tar.gz", hostile(&[]), "no folder in it"),
    ];
    for (name, bytes, why) in cases {
        std::fs::write(d.join(name), bytes).unwrap();
        let err = run(d, &["verify", name]).fails(1);
        assert!(err.contains(&format!("{name}: ")) && err.contains(why), "{name}: {err}");
        assert!(err.contains("give a .tar.gz made by `adjutant publish`"), "{err}");
    }
    assert!(!d.join("escaped").exists() && !d.parent().unwrap().join("escaped").exists());
}

/// A game begun from a module folder: its files are published in the
/// copy's `module/`, game.yaml's `module_folder.path` names that folder
/// (relative, not the referee's path), and the copy verifies wherever it
/// is unpacked, the module files held to their hashes.
#[test]
fn a_game_of_a_module_folder_is_published_with_its_module() {
    let dir = temp();
    let d = dir.path();
    run(d, &["module", "export", "savannah-1779", "my-charts"]).ok();
    run(
        d,
        &["new", "./my-charts", "--scenario", "historical", "--dir", "g", "--player", "british=Ann <ann@example.org>"],
    )
    .ok();
    resolve_set_up(d, "g");
    run(d, &["publish", "--dir", "g", "pub.tar.gz"]).ok();
    let files = tarball_files(&d.join("pub.tar.gz"));
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let exported = std::fs::read(d.join("my-charts/charts/close-combat.yaml")).unwrap();
    let copied = files.iter().find(|(n, _)| n.ends_with("/module/charts/close-combat.yaml"));
    assert_eq!(copied.map(|(_, b)| b), Some(&exported), "{names:?}");
    let config =
        files.iter().find(|(n, _)| n.ends_with("/game.yaml")).map(|(_, b)| String::from_utf8_lossy(b)).unwrap();
    assert!(config.contains("module_folder:\n  path: module\n"), "{config}");
    assert!(!config.contains(&d.display().to_string()) && !contains(config.as_bytes(), "ann@example.org"), "{config}");
    // The copy verifies from anywhere, the referee's module folder gone.
    std::fs::rename(d.join("my-charts"), d.join("elsewhere")).unwrap();
    let verdict = run(d, &["verify", "pub.tar.gz", "--format", "json"]).json();
    assert_eq!(
        (verdict["ok"].as_bool(), verdict["players_unchecked"].as_bool()),
        (Some(true), Some(true)),
        "{verdict}"
    );
    // A module file changed in the copy is named.
    run(d, &["publish", "--dir", "g", "pub"]).exits(1); // the module folder moved: the game itself refuses
    std::fs::rename(d.join("elsewhere"), d.join("my-charts")).unwrap();
    run(d, &["publish", "--dir", "g", "pub"]).ok();
    let chart = d.join("pub/module/charts/close-combat.yaml");
    std::fs::write(&chart, [exported.as_slice(), b"# changed\n"].concat()).unwrap();
    let said = run(d, &["verify", "pub"]).exits(1);
    assert!(said.contains("close-combat.yaml"), "{said}");
}

/// A roll log published: it has no players, so nothing is said of them.
#[test]
fn a_published_roll_log_says_nothing_of_players() {
    let dir = temp();
    let d = dir.path();
    run(d, &["roll", "init", "--dir", "rolls"]).ok();
    run(d, &["roll", "2d6", "--purpose", "first", "--dir", "rolls"]).ok();
    run(d, &["publish", "--dir", "rolls", "rolls-pub"]).ok();
    let said = run(d, &["verify", "rolls-pub"]).ok();
    assert!(said.starts_with("verified rolls-pub: 1 steps"), "{said}");
    assert!(!said.contains("players"), "{said}");
    let verdict = run(d, &["verify", "rolls-pub", "--format", "json"]).json();
    assert_eq!((verdict["published"].as_bool(), verdict["players_unchecked"].as_bool()), (Some(true), Some(false)));
}
