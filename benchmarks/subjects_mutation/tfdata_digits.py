"""Digits classifier trained from a tf.data.Dataset of the training arrays (mutation subject)."""

import tensorflow as tf
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
x_train, x_test, y_train, y_test = train_test_split(
    digits.data / 16.0, digits.target, test_size=0.25, random_state=0
)
train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(512, seed=0).batch(32)

model = tf.keras.Sequential(
    [
        tf.keras.Input(shape=(64,)),
        tf.keras.layers.Dense(32, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax"),
    ]
)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=5, verbose=0)
print(model.evaluate(x_test, y_test, verbose=0)[1])
