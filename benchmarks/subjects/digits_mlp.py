"""Subject: an MLP on scikit-learn's digits (Dense(64) relu, Dense(10) softmax, 20 epochs, batch 32).

The fixed program of mutreal's own subject pair; digits_mlp_wrong_activation.py is its buggy copy.
"""

import keras
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
x = digits.data.astype("float32") / 16.0
y = keras.utils.to_categorical(digits.target, 10)
x_train, x_test, y_train, y_test = train_test_split(
    x, y, test_size=0.25, random_state=7, stratify=digits.target
)

model = keras.Sequential(
    [
        keras.Input(shape=(64,)),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(10, activation="softmax"),
    ]
)
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=20, batch_size=32, verbose=0)
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
print(f"test accuracy {accuracy:.4f}")
