"""Iris models compiled with user-defined losses: a def, a lambda and a Loss subclass (mutation subject).

The first model has two outputs (species, a classification; petal width, a regression) with one
loss per output in a dict; the second is compiled with a keras.losses.Loss subclass.
"""

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split
from tensorflow import keras
from tensorflow.keras import layers


def smoothed_crossentropy(y_true, y_pred):
    """Cross-entropy against labels smoothed by 0.1."""
    y_true = y_true * 0.9 + 0.1 / 3.0
    return -tf.reduce_sum(y_true * tf.math.log(y_pred + 1e-7), axis=-1)


class ScaledSquaredError(keras.losses.Loss):
    """Half the squared error."""

    def call(self, y_true, y_pred):
        return 0.5 * tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)


data = load_iris()
features = np.delete(data.data, 3, axis=1).astype("float32")
width = data.data[:, 3:].astype("float32")
species = keras.utils.to_categorical(data.target, 3)
x_train, x_test, s_train, s_test, w_train, w_test = train_test_split(
    features, species, width, test_size=0.3, random_state=0
)

inputs = keras.Input(shape=(3,))
hidden = layers.Dense(16, activation="relu")(inputs)
species_out = layers.Dense(3, activation="softmax", name="species")(hidden)
width_out = layers.Dense(1, name="width")(hidden)
model = keras.Model(inputs=inputs, outputs=[species_out, width_out])
model.compile(
    optimizer="adam",
    loss={"species": smoothed_crossentropy, "width": lambda y_true, y_pred: tf.abs(y_true - y_pred)},
)
model.fit(x_train, {"species": s_train, "width": w_train}, epochs=20, verbose=0)

regressor = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(8, activation="relu"), layers.Dense(1)])
regressor.compile(optimizer="adam", loss=ScaledSquaredError())
regressor.fit(x_train, w_train, epochs=20, verbose=0)
print(
    model.evaluate(x_test, {"species": s_test, "width": w_test}, verbose=0),
    regressor.evaluate(x_test, w_test, verbose=0),
)
