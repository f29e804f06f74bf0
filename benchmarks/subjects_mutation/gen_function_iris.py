"""Iris classifier trained from a generator function of shuffled batches (mutation subject)."""

import numpy as np
from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split
from tensorflow import keras


def batches(features, labels, batch_size):
    """Endless shuffled batches of (features, labels)."""
    rng = np.random.default_rng(0)
    while True:
        order = rng.permutation(len(features))
        for start in range(0, len(order) - batch_size + 1, batch_size):
            rows = order[start : start + batch_size]
            yield features[rows], labels[rows]


data = load_iris()
x_train, x_test, y_train, y_test = train_test_split(
    data.data.astype("float32"), data.target, test_size=0.3, random_state=0
)
y_train = keras.utils.to_categorical(y_train, 3)
y_test = keras.utils.to_categorical(y_test, 3)

model = keras.Sequential(
    [
        keras.Input(shape=(4,)),
        keras.layers.Dense(16, activation="relu"),
        keras.layers.Dense(3, activation="softmax"),
    ]
)
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(batches(x_train, y_train, 16), steps_per_epoch=len(x_train) // 16, epochs=20, verbose=0)
print(model.evaluate(x_test, y_test, verbose=0)[1])
