"""``python -m learn.value``: self-play data and the value network's training.

    python -m learn.value selfplay DATA --games 20000 --seed 0 --workers 2
    python -m learn.value label DATA LABELS --rate 0.002 --moves 4 --rollouts 8 --workers 2
    python -m learn.value fit DATA [DATA ...] --out value.hvn --epochs 8 --seed 0
    python -m learn.value score DATA [DATA ...] --weights A.hvn B.hvn --rate 0.01

``selfplay`` and ``label`` go on where a stopped run left off (same folder, same settings).
``fit`` takes game folders and label folders alike.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m learn.value", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("selfplay", help="play games into a data folder (resumable)")
    play.add_argument("folder", type=Path)
    play.add_argument("--games", type=int, default=1000)
    play.add_argument("--players", type=int, default=4)
    play.add_argument("--policy", choices=("heuristic", "expert"), default="heuristic")
    play.add_argument("--weights", default="", help="the expert policy's network file")
    play.add_argument("--params", default="", help="the expert's settings: name=value,...")
    play.add_argument(
        "--experts", type=int, default=0, help="expert seats a game (0: all; others heuristic)"
    )
    play.add_argument(
        "--offers", action="store_true", help="heuristic seats make the heuristic bot's offers"
    )
    play.add_argument("--explore", type=float, default=0.05)
    play.add_argument("--shard-games", type=int, default=100)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--workers", type=int, default=1)
    lab = sub.add_parser(
        "label", help="label positions of stored games by games played on from each move"
    )
    lab.add_argument("source", type=Path, help="a folder of heuristic games")
    lab.add_argument("folder", type=Path, help="where the labels go (resumable)")
    lab.add_argument("--rate", type=float, default=0.002, help="share of decision points")
    lab.add_argument("--moves", type=int, default=4, help="moves looked at a decision point")
    lab.add_argument("--rollouts", type=int, default=8, help="games played on from each move")
    lab.add_argument("--shards", type=int, default=0, help="label the first N shards (0: all)")
    lab.add_argument("--seed", type=int, default=0)
    lab.add_argument(
        "--held-out", action="store_true", help="label the held-out shards (to score networks)"
    )
    lab.add_argument("--workers", type=int, default=1)
    fit = sub.add_parser("fit", help="train a network on data folders")
    fit.add_argument(
        "folders", nargs="+", help="data folders; FOLDER@RATE takes that share of its positions"
    )
    fit.add_argument("--out", type=Path, required=True)
    fit.add_argument("--hidden", default="128,64", help="hidden layer widths, comma separated")
    fit.add_argument("--epochs", type=int, default=8)
    fit.add_argument("--batch", type=int, default=1024)
    fit.add_argument("--lr", type=float, default=1e-3)
    fit.add_argument("--rate", type=float, default=0.1, help="share of each game's positions")
    fit.add_argument(
        "--setup-rate", type=float, default=0.25, help="share of each game's set-up positions"
    )
    fit.add_argument("--seed", type=int, default=0)
    fit.add_argument("--threads", type=int, default=1)
    fit.add_argument("--init", default="", help="a network file to go on training from")
    fit.add_argument("--workers", type=int, default=1, help="processes that read the games")
    check = sub.add_parser(
        "score", help="network files' figures on the games fit holds out of data folders"
    )
    check.add_argument(
        "folders", nargs="+", help="data folders (FOLDER@RATE as for fit) and held-out labels"
    )
    check.add_argument("--weights", type=Path, nargs="+", required=True)
    check.add_argument("--rate", type=float, default=0.1)
    check.add_argument("--setup-rate", type=float, default=0.25)
    check.add_argument("--seed", type=int, default=0)
    check.add_argument("--workers", type=int, default=1)
    check.add_argument(
        "--margin", type=float, default=0.05, help="the expert's margin, for held-out labels"
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "selfplay":
            from learn.value.selfplay import SelfPlay, generate

            run = SelfPlay(
                players=args.players,
                policy=args.policy,
                weights=args.weights,
                params=args.params,
                experts=args.experts,
                offers=args.offers,
                explore=args.explore,
                games=args.games,
                shard_games=args.shard_games,
                seed=args.seed,
            )
            record = generate(run, args.folder, args.workers)
            print(
                f"{args.folder}: {record['games']} games, {record['moves']} moves, "
                f"{record['cpu_seconds']:.0f} CPU s"
            )
            return 0
        if args.command == "label":
            from learn.value.rollouts import Rollouts, label

            labels = Rollouts(
                rate=args.rate,
                moves=args.moves,
                rollouts=args.rollouts,
                seed=args.seed,
                held_out=args.held_out,
            )
            done = label(args.source, args.folder, labels, args.workers, args.shards)
            print(
                f"{args.folder}: {done['positions']} positions, {done['afterstates']} states, "
                f"{done['games']} games played on, {done['cpu_seconds']:.0f} CPU s"
            )
            return 0
        folders: list[Path] = []
        rates: dict[Path, float] = {}
        for text in args.folders:
            name, at, rate = text.rpartition("@") if "@" in text else (text, "", "")
            folder = Path(name)
            folders.append(folder)
            if at:
                rates[folder] = float(rate)
        if args.command == "score":
            from learn.value.fit import score

            figures = score(
                folders,
                args.weights,
                args.rate,
                args.setup_rate,
                args.seed,
                args.workers,
                rates,
                args.margin,
            )
            for name, f in figures.items():
                if "positions" in f:
                    print(
                        f"{name}: {f['positions']:.0f} held-out positions, cross-entropy "
                        f"{f['cross_entropy']:.4f}, likeliest seat won {f['accuracy']:.3f}, "
                        f"Brier {f['brier']:.4f}"
                    )
                if "points" in f:
                    print(
                        f"{name}: {f['points']:.0f} labelled decision points, its pick won "
                        f"{f['regret']:.4f} less than the best move looked at (the policy's "
                        f"move {f['policy_regret']:.4f}), the best in {f['agreement']:.3f}; "
                        f"the policy's move unless beaten by {args.margin}: {f['kept_regret']:.4f}"
                    )
            return 0
        from learn.value.fit import Fit, train

        hidden = tuple(int(h) for h in args.hidden.split(",") if h.strip())
        settings = Fit(
            hidden=hidden,
            epochs=args.epochs,
            batch=args.batch,
            lr=args.lr,
            rate=args.rate,
            setup_rate=args.setup_rate,
            seed=args.seed,
            threads=args.threads,
            init=args.init,
        )
        command = "python -m learn.value " + " ".join(map(shlex.quote, argv or sys.argv[1:]))
        manifest = train(folders, args.out, settings, args.workers, command=command, rates=rates)
        print(f"{args.out}: {manifest['steps']} steps, {manifest['cpu_seconds']:.0f} CPU s")
        return 0
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
