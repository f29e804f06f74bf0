"""Digits classifier trained from a keras.utils.Sequence built on the training arrays (mutation subject)."""

import math

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tensorflow import keras


class DigitSequence(keras.utils.Sequence):
    """Batches of flattened digit images and their class ids."""

    def __init__(self, x, y, batch_size):
        super().__init__()
        self.x, self.y = x, y
        self.batch_size = batch_size

    def __len__(self):
        return math.ceil(len(self.x) / self.batch_size)

    def __getitem__(self, idx):
        rows = slice(idx * self.batch_size, (idx + 1) * self.batch_size)
        return self.x[rows], self.y[rows]


digits = load_digits()
x = digits.data.astype(np.float32) / 16.0
x_train, x_test, y_train, y_test = train_test_split(x, digits.target, test_size=0.25, random_state=0)

model = keras.Sequential(
    [
        keras.Input(shape=(64,)),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(10, activation="softmax"),
    ]
)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(DigitSequence(x_train, y_train, 32), epochs=5, verbose=0)
print(model.evaluate(x_test, y_test, verbose=0)[1])
