"""Iris classifier with two inputs (sepal and petal measurements), fit([a, b], y) (mutation subject)."""

from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split
from tensorflow import keras
from tensorflow.keras import layers

data = load_iris()
x_train, x_test, y_train, y_test = train_test_split(data.data, data.target, test_size=0.3, random_state=0)
sepal_train, petal_train = x_train[:, :2], x_train[:, 2:]
sepal_test, petal_test = x_test[:, :2], x_test[:, 2:]

sepal = keras.Input(shape=(2,), name="sepal")
petal = keras.Input(shape=(2,), name="petal")
a = layers.Dense(8, activation="relu")(sepal)
b = layers.Dense(8, activation="relu")(petal)
merged = layers.concatenate([a, b])
output = layers.Dense(3, activation="softmax")(merged)
model = keras.Model(inputs=[sepal, petal], outputs=output)

model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit([sepal_train, petal_train], y_train, epochs=30, batch_size=16, verbose=0)
print(model.evaluate([sepal_test, petal_test], y_test, verbose=0)[1])
