"""Batches of digit images for gen_class_digits (a generator class in a second module)."""

import numpy as np


class DigitBatches:
    """Called, an endless generator of shuffled (images, one-hot labels) batches."""

    def __init__(self, images, labels, batch_size=32):
        self.images = images
        self.labels = labels
        self.batch_size = batch_size
        self.rng = np.random.default_rng(1)

    def __call__(self):
        while True:
            order = self.rng.permutation(len(self.images))
            for start in range(0, len(order) - self.batch_size + 1, self.batch_size):
                rows = order[start : start + self.batch_size]
                yield self.images[rows], self.labels[rows]
