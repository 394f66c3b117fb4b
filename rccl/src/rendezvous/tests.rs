use super::*;
use std::collections::HashMap;
use std::thread;

fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

const TORCHRUN: &[(&str, &str)] = &[
    ("RANK", "3"),
    ("WORLD_SIZE", "8"),
    ("LOCAL_RANK", "1"),
    ("MASTER_ADDR", "10.0.0.5"),
    ("MASTER_PORT", "29500"),
    ("TORCHELASTIC_RUN_ID", "run-42"),
];

#[test]
fn torchrun_variables() {
    let job = Job::from_vars(vars(TORCHRUN)).unwrap();
    assert_eq!(
        job,
        Job {
            rank: 3,
            world_size: 8,
            local_rank: 1,
            master_addr: "10.0.0.5".into(),
            rendezvous_port: 29501,
            job_id: "run-42".into(),
            launcher: Launcher::Torchrun,
        }
    );
    let mut with_override = TORCHRUN.to_vec();
    with_override.push((JOB_ID_VAR, "mine"));
    assert_eq!(Job::from_vars(vars(&with_override)).unwrap().job_id, "mine");
}

#[test]
fn rendezvous_port_under_torchrun_and_elsewhere() {
    // torchrun's own store holds MASTER_PORT: one above it (checked above).
    let without_torchrun: Vec<_> = TORCHRUN
        .iter()
        .copied()
        .filter(|(k, _)| *k != "TORCHELASTIC_RUN_ID")
        .collect();
    assert_eq!(
        Job::from_vars(vars(&without_torchrun))
            .unwrap()
            .rendezvous_port,
        29500,
        "RANK and friends set by hand, not by torchrun: MASTER_PORT itself"
    );
    let mut overridden = TORCHRUN.to_vec();
    overridden.push((PORT_VAR, "40000"));
    assert_eq!(
        Job::from_vars(vars(&overridden)).unwrap().rendezvous_port,
        40000
    );
    let mut bad = TORCHRUN.to_vec();
    bad.push((PORT_VAR, "0"));
    assert!(matches!(
        Job::from_vars(vars(&bad)),
        Err(RendezvousError::Invalid { name: PORT_VAR, .. })
    ));
    let top: Vec<_> = TORCHRUN
        .iter()
        .map(|&(k, v)| {
            if k == "MASTER_PORT" {
                (k, "65535")
            } else {
                (k, v)
            }
        })
        .collect();
    match Job::from_vars(vars(&top)) {
        Err(RendezvousError::Invalid { name, why, .. }) => {
            assert_eq!(name, "MASTER_PORT");
            assert!(why.contains(PORT_VAR), "{why}");
        }
        other => panic!("MASTER_PORT 65535 under torchrun: {other:?}"),
    }
}

#[test]
fn slurm_and_mpi_variables() {
    let slurm = Job::from_vars(vars(&[
        ("SLURM_PROCID", "5"),
        ("SLURM_NTASKS", "16"),
        ("SLURM_LOCALID", "1"),
        ("SLURM_JOB_ID", "9001"),
        ("SLURM_STEP_ID", "2"),
        ("MASTER_ADDR", "node01"),
        ("MASTER_PORT", "12345"),
    ]))
    .unwrap();
    assert_eq!((slurm.rank, slurm.world_size, slurm.local_rank), (5, 16, 1));
    assert_eq!(
        (slurm.launcher, slurm.job_id.as_str()),
        (Launcher::Slurm, "9001.2")
    );
    let ompi = Job::from_vars(vars(&[
        ("OMPI_COMM_WORLD_RANK", "1"),
        ("OMPI_COMM_WORLD_SIZE", "2"),
        ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
        ("MASTER_ADDR", "h"),
        ("MASTER_PORT", "1000"),
    ]))
    .unwrap();
    assert_eq!(ompi.launcher, Launcher::OpenMpi);
    assert_eq!(ompi.job_id, "openmpi@h:1000");
    let mpich = Job::from_vars(vars(&[
        ("PMI_RANK", "0"),
        ("PMI_SIZE", "1"),
        ("MASTER_ADDR", "h"),
        ("MASTER_PORT", "1000"),
    ]))
    .unwrap();
    assert_eq!((mpich.launcher, mpich.local_rank), (Launcher::Mpich, 0));
}

#[test]
fn bad_variables_are_named() {
    let with = |changes: &[(&'static str, &'static str)]| {
        let mut v: Vec<(&str, &str)> = TORCHRUN
            .iter()
            .filter(|(k, _)| !changes.iter().any(|(c, _)| c == k))
            .copied()
            .collect();
        v.extend(changes.iter().filter(|(_, value)| !value.is_empty()));
        Job::from_vars(vars(&v)).unwrap_err().to_string()
    };
    assert_eq!(
        with(&[("MASTER_PORT", "")]),
        "torchrun job: MASTER_PORT is not set"
    );
    assert!(with(&[("MASTER_PORT", "0")]).starts_with("MASTER_PORT=\"0\": a TCP port"));
    assert!(with(&[("MASTER_PORT", "70000")]).starts_with("MASTER_PORT=\"70000\""));
    assert!(with(&[("RANK", "x")]).contains("not a non-negative integer"));
    assert!(with(&[("RANK", "-1")]).contains("not a non-negative integer"));
    assert_eq!(
        with(&[("RANK", "8")]),
        "RANK=\"8\": must be below the world size 8"
    );
    assert_eq!(
        with(&[("WORLD_SIZE", "0")]),
        "WORLD_SIZE=\"0\": a job has at least one process"
    );
    let long = "j".repeat(MAX_JOB_ID + 1);
    let mut v = TORCHRUN.to_vec();
    v.push((JOB_ID_VAR, &long));
    assert!(Job::from_vars(vars(&v))
        .unwrap_err()
        .to_string()
        .contains("at most 256 bytes"));
    assert!(matches!(
        Job::from_vars(vars(&[])),
        Err(RendezvousError::NoLauncher)
    ));
}

fn job(rank: usize, world_size: usize, port: u16) -> Job {
    Job {
        rank,
        world_size,
        local_rank: rank,
        master_addr: "127.0.0.1".into(),
        rendezvous_port: port,
        job_id: "test-job".into(),
        launcher: Launcher::Torchrun,
    }
}

fn id() -> UniqueId {
    let mut b = [0u8; UNIQUE_ID_BYTES];
    for (i, x) in b.iter_mut().enumerate() {
        *x = (i * 7 + 3) as u8;
    }
    UniqueId::from_bytes(b)
}

/// A listener on a free loopback port, and the port.
fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

fn deadline(secs: u64) -> Instant {
    Instant::now() + Duration::from_secs(secs)
}

#[test]
fn every_rank_gets_rank_zeros_id_through_exchange() {
    // The public path end to end: rank 0 binds MASTER_PORT itself.
    let (l, port) = listener();
    drop(l);
    let world = 4;
    let root =
        thread::spawn(move || job(0, world, port).exchange(Some(id()), Duration::from_secs(20)));
    let ranks: Vec<_> = (1..world)
        .map(|r| thread::spawn(move || job(r, world, port).exchange(None, Duration::from_secs(20))))
        .collect();
    assert_eq!(root.join().unwrap().unwrap(), id());
    for r in ranks {
        assert_eq!(r.join().unwrap().unwrap(), id());
    }
}

#[test]
fn a_single_process_job_needs_no_network() {
    let j = job(0, 1, 1);
    assert_eq!(
        j.exchange(Some(id()), Duration::from_millis(1)).unwrap(),
        id()
    );
    assert!(job(1, 2, 1)
        .exchange(Some(id()), Duration::from_secs(1))
        .is_err());
    assert!(job(0, 2, 1).exchange(None, Duration::from_secs(1)).is_err());
}

/// Sends raw bytes to rank 0 and returns its answer (or the error).
fn raw_peer(port: u16, bytes: Vec<u8>) -> thread::JoinHandle<std::result::Result<Vec<u8>, String>> {
    thread::spawn(move || {
        let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
        s.write_all(&bytes).map_err(|e| e.to_string())?;
        read_frame(&mut s, 1024, deadline(10)).map_err(|e| e.to_string())
    })
}

fn refusal(answer: &[u8]) -> String {
    assert_eq!(answer[0], 1, "a refusal, not an id");
    String::from_utf8_lossy(&answer[1..]).into_owned()
}

#[test]
fn hostile_and_mistaken_peers_are_refused_and_the_job_still_forms() {
    let (l, port) = listener();
    let world = 3;
    let root = thread::spawn(move || serve(&l, &job(0, world, port), &id(), deadline(30)));

    // Each bad peer in turn, while the real ranks have not joined yet.
    let mut huge = TAG.to_vec();
    huge.extend_from_slice(&u32::MAX.to_be_bytes());
    let reason = refusal(&raw_peer(port, huge).join().unwrap().unwrap());
    assert!(reason.contains("4294967295-byte message"), "{reason}");

    let mut wrong_tag = b"GET / HTTP/1.1\r\n\r\n".to_vec();
    wrong_tag.resize(64, b' ');
    let reason = refusal(&raw_peer(port, wrong_tag).join().unwrap().unwrap());
    assert!(reason.contains("wrong protocol tag"), "{reason}");

    let mut short = TAG.to_vec();
    short.extend_from_slice(&3u32.to_be_bytes());
    short.extend_from_slice(&[1, 2, 3]);
    let reason = refusal(&raw_peer(port, short).join().unwrap().unwrap());
    assert!(reason.contains("too short"), "{reason}");

    let mut other_job = job(1, world, port);
    other_job.job_id = "another-job".into();
    match other_job.exchange(None, Duration::from_secs(10)) {
        Err(RendezvousError::Refused(r)) => assert!(r.contains("another-job"), "{r}"),
        other => panic!("{other:?}"),
    }
    match job(1, world + 1, port).exchange(None, Duration::from_secs(10)) {
        Err(RendezvousError::Refused(r)) => assert!(r.contains("world size 4"), "{r}"),
        other => panic!("{other:?}"),
    }
    match job(7, world, port).exchange(None, Duration::from_secs(10)) {
        Err(RendezvousError::Refused(r)) => assert!(r.contains("rank 7"), "{r}"),
        other => panic!("{other:?}"),
    }

    // The real ranks join; a second rank 1 is refused.
    assert_eq!(
        job(1, world, port)
            .exchange(None, Duration::from_secs(10))
            .unwrap(),
        id()
    );
    match job(1, world, port).exchange(None, Duration::from_secs(10)) {
        Err(RendezvousError::Refused(r)) => assert!(r.contains("already joined"), "{r}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        job(2, world, port)
            .exchange(None, Duration::from_secs(10))
            .unwrap(),
        id()
    );
    root.join().unwrap().unwrap();
}

#[test]
fn a_silent_peer_holds_rank_zero_only_for_one_step() {
    let (l, port) = listener();
    let root = thread::spawn(move || serve(&l, &job(0, 2, port), &id(), deadline(30)));
    let silent = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let started = Instant::now();
    assert_eq!(
        job(1, 2, port)
            .exchange(None, Duration::from_secs(20))
            .unwrap(),
        id()
    );
    root.join().unwrap().unwrap();
    assert!(
        started.elapsed() < STEP + Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    drop(silent);
}

#[test]
fn missing_ranks_time_out_with_their_names() {
    let (l, port) = listener();
    let root = thread::spawn(move || serve(&l, &job(0, 3, port), &id(), deadline(2)));
    assert_eq!(
        job(1, 3, port)
            .exchange(None, Duration::from_secs(5))
            .unwrap(),
        id()
    );
    match root.join().unwrap() {
        Err(RendezvousError::Timeout { detail, .. }) => {
            assert_eq!(detail, "ranks 2 never joined");
        }
        other => panic!("{other:?}"),
    }
    // A rank whose rank 0 never starts.
    let (l, port) = listener();
    drop(l);
    let started = Instant::now();
    match job(1, 2, port).exchange(None, Duration::from_millis(600)) {
        Err(RendezvousError::Timeout { detail, .. }) => {
            assert!(detail.contains("never answered"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_malformed_answer_from_rank_zero_is_an_error() {
    for (body, expect) in [
        (vec![0u8; 5], "an id of 4 bytes"),
        (vec![9u8], "status 9"),
        (Vec::new(), "an empty answer"),
    ] {
        let (l, port) = listener();
        let fake_root = thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            read_frame(&mut s, 1024, deadline(10)).unwrap();
            let mut msg = TAG.to_vec();
            msg.extend_from_slice(&(body.len() as u32).to_be_bytes());
            msg.extend_from_slice(&body);
            s.write_all(&msg).unwrap();
        });
        match job(1, 2, port).exchange(None, Duration::from_secs(10)) {
            Err(RendezvousError::Malformed(m)) => assert!(m.contains(expect), "{m}"),
            other => panic!("{other:?}"),
        }
        fake_root.join().unwrap();
    }
    // An answer longer than any real one is refused before it is read.
    let (l, port) = listener();
    let fake_root = thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        read_frame(&mut s, 1024, deadline(10)).unwrap();
        let mut msg = TAG.to_vec();
        msg.extend_from_slice(&(1u32 << 30).to_be_bytes());
        let _ = s.write_all(&msg);
    });
    match job(1, 2, port).exchange(None, Duration::from_secs(10)) {
        Err(RendezvousError::Malformed(m)) => assert!(m.contains("1073741824-byte"), "{m}"),
        other => panic!("{other:?}"),
    }
    fake_root.join().unwrap();
}

#[test]
fn the_greeting_round_trips() {
    let j = job(2, 5, 1);
    let msg = hello(&j);
    assert_eq!(&msg[..8], TAG);
    let h = parse_hello(&msg[12..]).unwrap();
    assert_eq!(
        h,
        Hello {
            rank: 2,
            world_size: 5,
            job_id: "test-job".into()
        }
    );
    assert!(parse_hello(&[0, 0, 0, 1, 0, 0, 0, 2, 0xff]).is_err());
    let a = answer(Err(&"é".repeat(400)));
    assert!(a.len() <= 12 + 1 + MAX_REASON);
}
