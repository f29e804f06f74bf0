"""Batches of digit images for gen_class_digits (a generator class in a second module)."""

import numpy as np


class DigitBatches:
    """An endless iterator over shuffled (images, one-hot labels) batches."""

    def __init__(self, images, labels, batch_size=32):
        self.images = images
        self.labels = labels
        self.batch_size = batch_size
        self.rng = np.random.default_rng(1)
        self.order = self.rng.permutation(len(images))
        self.position = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.position + self.batch_size > len(self.order):
            self.order = self.rng.permutation(len(self.images))
            self.position = 0
        rows = self.order[self.position : self.position + self.batch_size]
        self.position += self.batch_size
        return self.images[rows], self.labels[rows]
