"""Make the kit's sky masks once: colour thresholds, connected to the top edge, inside hand-set rectangles.

Run from the repository root:  .venv/bin/python data/sky_masks/make_masks.py
It writes data/sky_masks/<name>.png (white = sky) at the resolution the kit works
at (the photograph averaged over 4 x 4 pixel blocks, see kgslab.data.kfd), and a
picture of every mask over its photograph, to check by eye, to the path given as
the first argument (default /tmp/sky_masks_overlay.png; it is not shipped).

The procedure (semi-automatic, written down so anyone can redo or improve it):

1. a colour rule marks candidate sky pixels: blue at least as strong as red
   by a margin, and (for the daylight photograph) bright and unsaturated; in
   the grey photograph (camera), bright and smooth;
2. only candidates inside a hand-set rectangle count (above the horizon or
   the ground line, read off the photograph by eye);
3. only candidates connected to the top edge count (sky reaches the top of
   the frame; this drops blue patches of water, clothes or lamps);
4. in the daylight photograph, pin holes are filled (binary closing with a
   3 x 3 square; not in the dusk one, whose thin launch towers must stay out),
   and single stray pixels are removed (binary opening with a 3 x 3 square).

Photographs without sky have no mask file: every pixel is "not sky".
"""

from pathlib import Path

import numpy as np
from scipy import ndimage
from skimage.io import imsave

from kgslab.data.kfd import SKY_PHOTOGRAPHS, load_photograph

HERE = Path(__file__).resolve().parent

# Hand-set rectangles (rows, columns) at the working resolution where sky may be.
RECTANGLES = {
    "china": (slice(0, 54), slice(0, 160)),     # above the far shore of the lake
    "rocket": (slice(0, 100), slice(0, 160)),   # above the lights at the foot of the pads
    "camera": (slice(0, 46), slice(0, 128)),    # above the roofs and the lawn's far edge
}


def colour_rule(name, image):
    red, green, blue = image[..., 0], image[..., 1], image[..., 2]
    if name == "china":          # daylight sky: blue above red, bright; or near-white haze at the horizon
        blue_sky = (blue - red > 0.02) & (image.mean(axis=2) > 0.62) & (image.std(axis=2) < 0.12)
        haze = (blue - red > -0.01) & (image.mean(axis=2) > 0.8) & (image.std(axis=2) < 0.06)
        return blue_sky | haze
    if name == "rocket":         # dusk sky: dark blue, blue clearly above red and green
        return (blue - red > 0.1) & (blue - green > 0.05) & (image.max(axis=2) < 0.6)
    if name == "camera":         # grey overcast sky: bright and smooth (the 3 x 3 spread of grey is small)
        grey = image.mean(axis=2)
        spread = ndimage.generic_filter(grey, np.std, size=3, mode="nearest")
        return (grey > 0.7) & (spread < 0.03)
    raise ValueError(f"no colour rule for {name!r}")


def make_mask(name):
    image = load_photograph(name)
    candidate = colour_rule(name, image)
    inside = np.zeros_like(candidate)
    inside[RECTANGLES[name]] = True
    candidate &= inside
    components, _ = ndimage.label(candidate)
    touching_top = np.setdiff1d(np.unique(components[0]), [0])
    mask = np.isin(components, touching_top)
    if name == "china":      # fill pin holes in the haze; the rocket's thin towers must stay out
        mask = ndimage.binary_closing(mask, np.ones((3, 3)), border_value=1) & inside
    mask = ndimage.binary_opening(mask, np.ones((3, 3)))
    return mask


def main(overlay_path="/tmp/sky_masks_overlay.png"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [name for name, has_sky in SKY_PHOTOGRAPHS.items() if has_sky]
    figure, axes = plt.subplots(len(names), 2, figsize=(10, 3.6 * len(names)))
    for row, name in zip(axes, names):
        mask = make_mask(name)
        imsave(HERE / f"{name}.png", (mask * 255).astype(np.uint8), check_contrast=False)
        image = load_photograph(name)
        row[0].imshow(image)
        row[0].set_title(f"{name} ({image.shape[0]} x {image.shape[1]} working resolution)")
        shaded = image.copy()
        shaded[mask] = 0.5 * shaded[mask] + 0.5 * np.array([1.0, 0.0, 1.0])
        row[1].imshow(shaded)
        row[1].set_title(f"sky mask in magenta: {mask.mean():.0%} of the pixels")
        print(f"{name}: {mask.sum()} sky pixels of {mask.size} ({mask.mean():.1%})")
    figure.savefig(overlay_path, dpi=60)


if __name__ == "__main__":
    import sys
    main(*sys.argv[1:2])
