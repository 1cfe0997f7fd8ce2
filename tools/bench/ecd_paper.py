"""WRL 90/4's edit-compile-debug benchmark as Sprite measured it (Nelson's thesis, Appendix C,
Tables C-1, C-3, C-5, C-7, C-9; the paper's Figures 1-6 are drawn from them; Table 2 is WRL 90/4's
Table 2 = the thesis' Table 6-2), and the averaging of build/bench/ecd.csv's runs into the same
shape. Apart from bench_ecd.py because both it and ecd_figures.py read these, and neither
imports the other."""
import csv, os, statistics

# Appendix C's columns, each row the average of three runs (a Sun-3/75 client, a Sun-3/180
# server, two loops): server CPU utilisation (%), elapsed (s), page faults (all, from swap),
# page-outs (8 KB pages), file-system KB over the network (read, write, total), and all KB
# over the network (file and VM data, packet headers, control: read, write, total).
COLS = ["util", "elapsed_s", "faults", "faults_swap", "pageouts", "fs_read_kb", "fs_write_kb", "fs_kb",
        "net_read_kb", "net_write_kb", "net_kb"]
# By client memory (MB): "nocache" (nocc: no client cache), fixed caches ("0.5M" ...), the
# variable cache without penalty ("p0", the thesis' "norm") and with 60-960 s.
APPENDIX_C = {
    10: {"nocache": (24.91, 982, 4569, 2830, 3098, 33948, 9810, 43759, 74647, 39506, 114154),
         "0.5M": (23.87, 951, 4701, 3332, 3192, 30185, 9506, 39692, 71776, 39804, 111580),
         "1M": (36.73, 1899, 48869, 44919, 6272, 28787, 9485, 38273, 438587, 76257, 514845),
         "p0": (23.37, 942, 3309, 2140, 3748, 22761, 9485, 32247, 52533, 43987, 96521),
         "p60": (23.19, 928, 4009, 2703, 3183, 24828, 9485, 34314, 60434, 39398, 99832),
         "p120": (24.04, 923, 4424, 3064, 3234, 27075, 9485, 36561, 66234, 39990, 106225),
         "p240": (23.34, 923, 3806, 2628, 3042, 29600, 9485, 39086, 63686, 38260, 101946),
         "p480": (23.59, 909, 3556, 2399, 3090, 29666, 9486, 39152, 61681, 38629, 100311),
         "p960": (23.87, 919, 3837, 2654, 3106, 29727, 9485, 39213, 64080, 38829, 102910)},
    11: {"nocache": (23.57, 846, 2105, 836, 2481, 33941, 9810, 43751, 54005, 33636, 87642),
         "0.5M": (21.82, 793, 1739, 866, 2230, 30242, 9508, 39750, 47041, 30935, 77976),
         "1M": (21.57, 850, 2304, 1323, 2431, 29380, 9485, 38866, 50857, 32720, 83578),
         "2M": (35.71, 1896, 47323, 43525, 6051, 28419, 9485, 37905, 425297, 73998, 499296),
         "p0": (21.96, 840, 2462, 1473, 2934, 19609, 9485, 29094, 42080, 36781, 78862),
         "p60": (21.13, 821, 2027, 1097, 2355, 23287, 9482, 32769, 42206, 31828, 74034),
         "p120": (20.85, 798, 1708, 874, 2065, 24476, 9482, 33958, 40754, 29356, 70110),
         "p240": (21.54, 797, 1766, 915, 2265, 28855, 9485, 38341, 45819, 31249, 77068),
         "p480": (22.11, 777, 1714, 867, 2303, 29195, 9485, 38681, 45729, 31476, 77205),
         "p960": (21.38, 780, 1760, 910, 2053, 29500, 9484, 38984, 46402, 29406, 75808)},
    12: {"nocache": (23.02, 800, 1931, 670, 1766, 33936, 9810, 43747, 52424, 27498, 79922),
         "0.5M": (21.18, 768, 1485, 623, 1620, 30241, 9508, 39750, 44819, 25692, 70512),
         "1M": (21.47, 783, 1592, 767, 1872, 29336, 9485, 38822, 44810, 27819, 72630),
         "2M": (22.94, 878, 2975, 1844, 2640, 28840, 9485, 38326, 55914, 34651, 90566),
         "3M": (38.41, 2217, 63571, 59273, 6674, 22599, 9486, 32085, 554644, 82920, 637564),
         "p0": (20.86, 787, 2142, 1214, 2351, 15306, 9482, 24789, 34864, 31592, 66456),
         "p60": (20.11, 763, 1813, 901, 1842, 16826, 9484, 26311, 33623, 27255, 60879),
         "p120": (20.10, 751, 1523, 704, 1619, 23177, 9484, 32661, 37788, 25521, 63310),
         "p240": (20.04, 754, 1490, 676, 1622, 25194, 9485, 34679, 39604, 25577, 65181),
         "p480": (20.74, 756, 1463, 627, 1849, 26156, 9481, 35638, 40430, 27506, 67936),
         "p960": (21.25, 780, 1658, 849, 2024, 28242, 9482, 37724, 44261, 29089, 73351)},
    14: {"nocache": (20.94, 782, 1684, 440, 1189, 33942, 9810, 43752, 50298, 22560, 72858),
         "0.5M": (19.80, 714, 1090, 317, 1160, 30279, 9508, 39787, 41509, 21706, 63216),
         "1M": (19.28, 740, 1309, 475, 1084, 29368, 9485, 38854, 42379, 21087, 63467),
         "2M": (20.30, 747, 1411, 586, 1523, 28908, 9485, 38394, 42805, 24796, 67602),
         "3M": (20.86, 763, 1690, 870, 2008, 23471, 9485, 32957, 39536, 28862, 68399),
         "4M": (21.88, 846, 2810, 1736, 2674, 19751, 9485, 29236, 45093, 34735, 79829),
         "5M": (36.79, 1953, 53122, 49494, 6211, 15252, 9485, 24738, 459903, 76288, 536191),
         "p0": (18.99, 692, 1606, 709, 1653, 7508, 9469, 16978, 22171, 25317, 47489),
         "p60": (18.58, 671, 1355, 555, 1222, 12478, 9484, 21963, 25196, 21761, 46957),
         "p120": (18.26, 678, 1280, 503, 1194, 14112, 9484, 23596, 26265, 21561, 47826),
         "p240": (18.47, 689, 1288, 509, 1128, 19127, 9483, 28610, 31542, 21149, 52691),
         "p480": (18.47, 691, 1268, 479, 1095, 19102, 9485, 28588, 31342, 20874, 52216),
         "p960": (18.19, 714, 1291, 491, 1266, 18912, 9482, 28394, 31364, 22315, 53679)},
    16: {"nocache": (19.82, 721, 1253, 158, 431, 33938, 9810, 43748, 46596, 16029, 62625),
         "0.5M": (17.40, 667, 699, 33, 88, 30308, 9506, 39814, 38135, 12525, 50660),
         "1M": (18.49, 690, 904, 195, 649, 29423, 9485, 38909, 38991, 17278, 56270),
         "2M": (20.06, 691, 1021, 289, 1011, 28926, 9484, 38411, 39497, 20368, 59865),
         "3M": (19.57, 729, 1277, 459, 1247, 23469, 9485, 32955, 35993, 22289, 58283),
         "4M": (20.22, 736, 1445, 634, 1662, 19818, 9484, 29302, 33647, 25736, 59384),
         "5M": (21.33, 753, 1707, 868, 2239, 15924, 9485, 25410, 31857, 30589, 62446),
         "6M": (22.27, 870, 2848, 1724, 2939, 13099, 9485, 22585, 38521, 36759, 75280),
         "7M": (38.73, 2491, 76889, 72290, 6968, 8591, 9485, 18077, 651019, 88140, 739160),
         "p0": (18.20, 663, 1560, 673, 929, 7152, 9460, 16613, 21324, 19110, 40435),
         "p60": (17.34, 651, 1151, 432, 697, 9155, 9485, 18641, 19965, 17157, 37122),
         "p120": (18.25, 653, 1190, 455, 913, 11781, 9485, 21267, 23056, 19087, 42144),
         "p240": (16.95, 660, 993, 307, 342, 14352, 9485, 23838, 24013, 14269, 38282),
         "p480": (16.27, 651, 979, 291, 405, 14253, 9485, 23739, 23799, 14798, 38597),
         "p960": (16.50, 652, 987, 298, 607, 14283, 9485, 23769, 23923, 16500, 40424)},
}

# WRL 90/4 Table 2 (thesis Table 6-2), the variable cache without penalty, by client memory:
# cache min and max (MB), FS asks VM (times, satisfied), VM asks FS (times, satisfied).
TABLE_2 = {10: (0.25, 5.6, 8125, 1810, 2942, 1846), 11: (0.25, 6.4, 7105, 1889, 2610, 1967),
           12: (0.25, 6.9, 5840, 1964, 2555, 2075), 14: (0.25, 8.7, 4012, 1957, 2669, 2162),
           16: (0.34, 8.8, 3652, 1937, 2629, 2229)}

MEMS = [10, 11, 12, 14, 16]
SPRITE_KERNEL_KB = 1331          # "1.3 Mbytes of the 8 Mbytes were used by the kernel" (WRL 90/4, 3)
SPRITE_MIN_CACHE_KB = 256        # Table 2's smallest cache: "the minimum possible size (0.25 Mbytes)"


def paper(mem, config, col):
    """One figure of Appendix C, or None where Sprite has no such row (it thrashed)."""
    row = APPENDIX_C.get(mem, {}).get(config)
    return None if row is None else row[COLS.index(col)]


def paper_mb(mem, config):
    """(FS MB, VM MB, total MB) over Sprite's network: VM is the total less the file system's,
    so it holds the packet headers and control traffic too."""
    fs, net = paper(mem, config, "fs_kb"), paper(mem, config, "net_kb")
    if fs is None:
        return None
    return fs / 1024, (net - fs) / 1024, net / 1024


def paper_vm_kb(mem, config):
    """Sprite's VM bytes (KB): every page fault a page read and every page-out a page written,
    8 KB each (None where Sprite has no such row), the figure our vm.pageins and vm.pageouts
    (4 KB) are held to. Every fault moved a page: at 10 MB the network's bytes that were not
    the file system's are 11-13 % more than the faults' pages on the read side and 15-20 % more
    than the page-outs' on the write side (packet headers and control), where faults from swap
    alone would leave 80 % to headers. paper_mb's VM figure, the network's bytes less the
    files', carries all the headers (the file system's too)."""
    faults, outs = paper(mem, config, "faults"), paper(mem, config, "pageouts")
    return None if faults is None else (faults + outs) * 8


def config_key(row):
    """The Appendix C name of a CSV row's cache: nocache, 0.5M, p0, p120... (linux: a row of
    build/bench/linux-ecd.csv, Linux on the same work)."""
    if row["cache"] in ("linux", "adaptive"):
        return row["cache"]
    if row["cache"] == "variable":
        return "p%d" % int(float(row["penalty_s"]))
    if row["cache"] == "nocache":
        return "nocache"
    return "%gM" % (int(row["cache_kb"]) / 1024)


def label(config):
    """A config's name in prose: none (64 KB), fixed 0.5M, variable, variable 120 s, Linux 6.1."""
    if config == "linux":
        return "Linux 6.1"
    if config == "adaptive":
        return "variable, adaptive"
    if config == "nocache":
        return "none (64 KB)"
    if config.startswith("p"):
        return "variable" if config == "p0" else "variable %s s" % config[1:]
    return "fixed " + config


AVERAGED = ["elapsed_ms", "ms_edit", "ms_compile", "ms_link", "ms_debug", "fs_read_kb", "fs_write_kb",
            "vm_read_kb", "vm_write_kb", "faults", "pageins", "pageouts", "fs_asks_vm", "fs_asks_vm_satisfied",
            "vm_asks_fs", "vm_asks_fs_satisfied", "cache_min_kb", "cache_max_kb", "disk_busy_ms"]


def aggregate(rows, preset=None):
    """{(paper MB, config): averages of the runs} (with 'runs', 'util' in % and the MB figures);
    None where no run has a figure (Linux's negotiation counters)."""
    groups = {}
    for r in rows:
        if preset is None or r["preset"] == preset:
            groups.setdefault((int(r["mem_paper_mb"]), config_key(r)), []).append(r)
    out = {}
    for key, rs in groups.items():
        a = {}
        for k in AVERAGED:
            got = [float(r[k]) for r in rs if r.get(k, "") != ""]
            a[k] = statistics.mean(got) if got else None
        a["runs"] = len(rs)
        a["elapsed_min_ms"] = min(float(r["elapsed_ms"]) for r in rs)
        a["elapsed_max_ms"] = max(float(r["elapsed_ms"]) for r in rs)
        a["util"] = 100 * a["disk_busy_ms"] / a["elapsed_ms"] if a["elapsed_ms"] else 0
        a["fs_mb"] = (a["fs_read_kb"] + a["fs_write_kb"]) / 1024
        a["vm_mb"] = (a["vm_read_kb"] + a["vm_write_kb"]) / 1024
        a["total_mb"] = a["fs_mb"] + a["vm_mb"]
        out[key] = a
    return out


def linux_rows(path):
    """Linux's rows (linux-ecd.csv), of its matched preset where there is one, else its
    matched-fast (full speed), else its short."""
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        got = list(csv.DictReader(f))
    for preset in ("matched", "matched-fast", "short"):
        if any(r["preset"] == preset for r in got):
            return [r for r in got if r["preset"] == preset]
    return []
